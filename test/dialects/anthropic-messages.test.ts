import Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureBytes } from "../helpers/replay.ts";
import { blockText, cutsInsideCharacters, type Harness, startHarness } from "./harness.ts";

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());

const tools = ["get_weather", "delete_file", "Bash"].map((name) => ({
  name,
  description: `${name} tool`,
  input_schema: { type: "object" as const, properties: {} },
}));

function client(fixture: string, extra: Record<string, string> = {}) {
  return new Anthropic({
    apiKey: "sk-ant-test-key",
    baseURL: harness.base("anthropic"),
    maxRetries: 0,
    defaultHeaders: { "x-fixture": `anthropic-messages/${fixture}`, ...extra },
  });
}

const request = {
  model: "claude-sonnet-4-5",
  max_tokens: 1024,
  tools,
  messages: [{ role: "user" as const, content: "What's the weather in Paris?" }],
};

type Block = Anthropic.ContentBlock;
/** The final message as calls and texts, the way the tests compare it. */
function summary(message: Anthropic.Message) {
  return {
    blocks: message.content.map((block: Block) =>
      block.type === "tool_use"
        ? { call: block.name, input: block.input }
        : block.type === "text"
          ? { text: block.text }
          : { type: block.type },
    ),
    stop: message.stop_reason,
  };
}

/** The final message, or for a stream cut short (no message_stop) the SDK's partial snapshot. */
async function streamed(fixture: string, extra: Record<string, string> = {}) {
  const stream = client(fixture, extra).messages.stream(request);
  let snapshot: Anthropic.Message | undefined;
  stream.on("streamEvent", (_event, message) => {
    snapshot = message;
  });
  await stream.done();
  return summary(stream.receivedMessages.at(-1) ?? snapshot!);
}

const weather = { call: "get_weather", input: { city: "Paris", unit: "celsius" } };

const expectations: Record<string, ReturnType<typeof summary>> = {
  allowed: { blocks: [weather], stop: "tool_use" },
  "blocked-name": { blocks: [{ text: blockText.deleteFile }], stop: "end_turn" },
  "blocked-args": { blocks: [{ text: blockText.bash }], stop: "end_turn" },
  parallel: {
    blocks: [{ text: "I will check both." }, weather, { text: blockText.deleteFile }],
    stop: "tool_use",
  },
  "blocked-first": { blocks: [{ text: blockText.deleteFile }, weather], stop: "tool_use" },
  "text-tool": { blocks: [{ text: "Let me look up the weather for you." }, weather], stop: "tool_use" },
  "thinking-tool": { blocks: [{ type: "thinking" }, weather], stop: "tool_use" },
  utf8: {
    blocks: [
      { text: "Grüße aus Köln — 日本語のテキスト 🎉🎉" },
      { call: "get_weather", input: { city: "Zürich — 日本 🎉" } },
    ],
    stop: "tool_use",
  },
  "text-only": { blocks: [{ text: "Hello! Nothing to call here." }], stop: "end_turn" },
  truncated: { blocks: [{ text: "Cleaning up." }, { text: blockText.bashTruncated }], stop: null },
};

describe("Anthropic Messages through toolwall proxy (official SDK)", () => {
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
      const message = await client(`${fixture}.json`).messages.create(request);
      expect(summary(message)).toEqual(expectations[fixture]);
    });
  }

  it("stream with CRLF framing", async () => {
    expect(await streamed("parallel.sse", { "x-crlf": "1" })).toEqual(expectations.parallel);
  });

  it("stream with every multi-byte character split across network chunks", async () => {
    const cuts = cutsInsideCharacters(fixtureBytes("anthropic-messages/utf8.sse"));
    expect(await streamed("utf8.sse", { "x-cut": cuts.join(",") })).toEqual(expectations.utf8);
  });

  it("judges a stream it asked for even when the upstream labels it with another content-type", async () => {
    for (const type of ["application/json", "text/plain"]) {
      expect(await streamed("blocked-name.sse", { "x-content-type": type })).toEqual(
        expectations["blocked-name"],
      );
    }
  });

  it("passes an upstream error event through: the SDK raises the provider's error", async () => {
    await expect(streamed("error.sse")).rejects.toThrow(/Overloaded/);
  });

  it("lets allowed streams through byte-identical (pings included)", async () => {
    const response = await fetch(`${harness.base("anthropic")}/v1/messages`, {
      method: "POST",
      headers: { "x-fixture": "anthropic-messages/text-tool.sse", "content-type": "application/json" },
      body: JSON.stringify({ ...request, stream: true }),
    });
    expect(
      Buffer.from(await response.arrayBuffer()).equals(fixtureBytes("anthropic-messages/text-tool.sse")),
    ).toBe(true);
  });

  it("audits every decision with dialect, requestId, tool, input, action, rule", async () => {
    await streamed("parallel.sse");
    const decisions = harness.audit.events.filter((e) => e.type === "tool_call_intercepted").slice(-2);
    expect(decisions).toMatchObject([
      { dialect: "anthropic-messages", tool: "get_weather", action: "allow", input: { city: "Paris" } },
      {
        dialect: "anthropic-messages",
        tool: "delete_file",
        action: "deny",
        rule: "agents/dialect-tests#toolPolicy.rules[0]",
        mode: "Enforce",
        input: { path: "/etc/passwd" },
      },
    ]);
    expect(decisions[0]!.requestId).toBe(decisions[1]!.requestId);
  });

  it("any re-chunking of every fixture gives the same SDK result", async () => {
    const fixtures = Object.keys(expectations);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...fixtures),
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
