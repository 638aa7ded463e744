import fc from "fast-check";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureBytes } from "../helpers/replay.ts";
import { canonicalStream, readEvents } from "../helpers/sse.ts";
import { blockText, cutsInsideCharacters, type Harness, startHarness } from "./harness.ts";

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());

const tools = ["get_weather", "delete_file", "Bash"].map((name) => ({
  type: "function" as const,
  function: { name, description: `${name} tool`, parameters: { type: "object", properties: {} } },
}));

function client(fixture: string, extra: Record<string, string> = {}) {
  return new OpenAI({
    apiKey: "sk-test-openai-key",
    baseURL: `${harness.base("openai")}/v1`,
    maxRetries: 0,
    defaultHeaders: { "x-fixture": `openai-chat/${fixture}`, ...extra },
  });
}

const request = {
  model: "gpt-4o",
  tools,
  messages: [{ role: "user" as const, content: "What's the weather in Paris?" }],
};

function summary(completion: OpenAI.ChatCompletion) {
  const choice = completion.choices[0]!;
  return {
    content: choice.message.content ?? "",
    calls: (choice.message.tool_calls ?? []).map((call) =>
      call.type === "function"
        ? { call: call.function.name, input: JSON.parse(call.function.arguments) }
        : {},
    ),
    finish: choice.finish_reason,
  };
}

async function streamed(fixture: string, extra: Record<string, string> = {}) {
  return summary(await client(fixture, extra).chat.completions.stream(request).finalChatCompletion());
}

const weather = { call: "get_weather", input: { city: "Paris", unit: "celsius" } };

const expectations: Record<string, ReturnType<typeof summary>> = {
  allowed: { content: "", calls: [weather], finish: "tool_calls" },
  "blocked-name": { content: blockText.deleteFile, calls: [], finish: "stop" },
  "blocked-args": { content: blockText.bash, calls: [], finish: "stop" },
  parallel: { content: `I will check both.${blockText.deleteFile}`, calls: [weather], finish: "tool_calls" },
  "blocked-first": { content: blockText.deleteFile, calls: [weather], finish: "tool_calls" },
  "text-tool": { content: "Let me look up the weather for you.", calls: [weather], finish: "tool_calls" },
  utf8: {
    content: "Grüße aus Köln — 日本語のテキスト 🎉🎉",
    calls: [{ call: "get_weather", input: { city: "Zürich — 日本 🎉" } }],
    finish: "tool_calls",
  },
  "text-only": { content: "Hello! Nothing to call here.", calls: [], finish: "stop" },
  truncated: { content: `Cleaning up.${blockText.bashTruncated}`, calls: [], finish: "stop" },
};

const jsonExpectations: Record<string, ReturnType<typeof summary>> = {
  ...expectations,
  parallel: {
    content: `I will check both.\n${blockText.deleteFile}`,
    calls: [weather],
    finish: "tool_calls",
  },
};

describe("OpenAI Chat Completions through toolwall proxy (official SDK)", () => {
  for (const [fixture, expected] of Object.entries(expectations)) {
    it(`stream: ${fixture}`, async () => {
      expect(await streamed(`${fixture}.sse`)).toEqual(expected);
    });
  }

  for (const fixture of [
    "allowed",
    "blocked-name",
    "blocked-args",
    "parallel",
    "blocked-first",
    "text-tool",
    "utf8",
  ]) {
    it(`non-streaming: ${fixture}`, async () => {
      const completion = await client(`${fixture}.json`).chat.completions.create(request);
      expect(summary(completion)).toEqual(jsonExpectations[fixture]);
    });
  }

  it("stream with CRLF framing", async () => {
    expect(await streamed("parallel.sse", { "x-crlf": "1" })).toEqual(expectations.parallel);
  });

  it("stream with every multi-byte character split across network chunks", async () => {
    const cuts = cutsInsideCharacters(fixtureBytes("openai-chat/utf8.sse"));
    expect(await streamed("utf8.sse", { "x-cut": cuts.join(",") })).toEqual(expectations.utf8);
  });

  it("passes an upstream error chunk through: the SDK raises the provider's error", async () => {
    await expect(streamed("error.sse")).rejects.toThrow(/overloaded/);
  });

  it("lets allowed streams through re-serialised canonically, every event kept, comments dropped", async () => {
    const response = await fetch(`${harness.base("openai")}/v1/chat/completions`, {
      method: "POST",
      headers: { "x-fixture": "openai-chat/text-tool.sse", "content-type": "application/json" },
      body: JSON.stringify({ ...request, stream: true }),
    });
    const text = await response.text();
    expect(text).toMatch(canonicalStream);
    expect(readEvents(text)).toEqual(readEvents(fixtureBytes("openai-chat/text-tool.sse").toString()));
  });

  it("any re-chunking of every fixture gives the same SDK result", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(expectations)),
        fc.array(fc.nat({ max: 4000 }), { maxLength: 12 }),
        async (fixture, cuts) => {
          expect(await streamed(`${fixture}.sse`, { "x-cut": cuts.join(",") })).toEqual(
            expectations[fixture],
          );
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe("legacy function_call (the deprecated functions parameter)", () => {
  const legacyRequest = {
    model: "gpt-3.5-turbo",
    functions: [{ name: "Bash", parameters: { type: "object", properties: {} } }],
    messages: [{ role: "user" as const, content: "clean up" }],
  };
  const run = async (fixture: string) => {
    const completion = await client(fixture).chat.completions.stream(legacyRequest).finalChatCompletion();
    const choice = completion.choices[0]!;
    return {
      content: choice.message.content,
      call: choice.message.function_call,
      finish: choice.finish_reason,
    };
  };

  it("is judged like a tool call: blocked by an argument rule", async () => {
    expect(await run("legacy-function-call.sse")).toEqual({
      content: blockText.bash,
      call: undefined,
      finish: "stop",
    });
  });

  it("passes when allowed, byte-identical", async () => {
    expect(await run("legacy-function-call-allowed.sse")).toMatchObject({
      call: { name: "Bash", arguments: '{"command":"ls -la /tmp/x"}' },
      finish: "function_call",
    });
  });
});
