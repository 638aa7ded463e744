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
  name,
  description: `${name} tool`,
  parameters: { type: "object", properties: {} },
  strict: false,
}));

function client(fixture: string, extra: Record<string, string> = {}) {
  return new OpenAI({
    apiKey: "sk-test-openai-key",
    baseURL: `${harness.base("openai")}/v1`,
    maxRetries: 0,
    defaultHeaders: { "x-fixture": `openai-responses/${fixture}`, ...extra },
  });
}

const request = { model: "gpt-4.1", tools, input: "What's the weather in Paris?" };

function summary(response: OpenAI.Responses.Response) {
  return response.output.map((item) => {
    if (item.type === "function_call") return { call: item.name, input: JSON.parse(item.arguments) };
    if (item.type === "message")
      return { text: item.content.map((part) => (part.type === "output_text" ? part.text : "")).join("") };
    return { type: item.type };
  });
}

async function streamed(fixture: string, extra: Record<string, string> = {}) {
  return summary(await client(fixture, extra).responses.stream(request).finalResponse());
}

const weather = { call: "get_weather", input: { city: "Paris", unit: "celsius" } };

const expectations: Record<string, ReturnType<typeof summary>> = {
  allowed: [weather],
  "blocked-name": [{ text: blockText.deleteFile }],
  "blocked-args": [{ text: blockText.bash }],
  parallel: [{ text: "I will check both." }, weather, { text: blockText.deleteFile }],
  "blocked-first": [{ text: blockText.deleteFile }, weather],
  "text-tool": [{ text: "Let me look up the weather for you." }, weather],
  "thinking-tool": [{ type: "reasoning" }, weather],
  utf8: [
    { text: "Grüße aus Köln — 日本語のテキスト 🎉🎉" },
    { call: "get_weather", input: { city: "Zürich — 日本 🎉" } },
  ],
  "text-only": [{ text: "Hello! Nothing to call here." }],
  truncated: [{ text: "Cleaning up." }, { text: blockText.bashTruncated }],
};

async function rawStream(fixture: string): Promise<string> {
  const response = await fetch(`${harness.base("openai")}/v1/responses`, {
    method: "POST",
    headers: { "x-fixture": `openai-responses/${fixture}`, "content-type": "application/json" },
    body: JSON.stringify({ ...request, stream: true }),
  });
  return response.text();
}

function sequenceNumbers(text: string): number[] {
  return [...text.matchAll(/"sequence_number":(\d+)/g)].map((m) => Number(m[1]));
}

describe("OpenAI Responses through toolwall proxy (official SDK)", () => {
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
      const response = await client(`${fixture}.json`).responses.create(request);
      expect(summary(response)).toEqual(expectations[fixture]);
    });
  }

  it("judges custom tool calls (free-form input) like function calls", async () => {
    const openai = client("custom-tool-blocked.sse");
    const response = await openai.responses
      .stream({
        model: "gpt-5",
        input: "clean up",
        tools: [{ type: "custom", name: "delete_file", description: "delete a file" }],
      })
      .finalResponse();
    expect(summary(response)).toEqual([{ text: blockText.deleteFile }]);
    expect(harness.audit.events.at(-1)).toMatchObject({
      tool: "delete_file",
      input: { input: "/etc/passwd" },
    });
  });

  it("keeps sequence_number contiguous after replacing a blocked call", async () => {
    for (const fixture of ["parallel.sse", "blocked-first.sse", "blocked-name.sse"]) {
      const numbers = sequenceNumbers(await rawStream(fixture));
      expect(numbers).toEqual(numbers.map((_, i) => i));
    }
  });

  it("a truncated stream: the cut-short call never reaches the client", async () => {
    const text = await rawStream("truncated.sse");
    expect(text).toContain(blockText.bashTruncated);
    expect(text).not.toContain('"type":"function_call"');
  });

  it("stream with CRLF framing", async () => {
    expect(await streamed("parallel.sse", { "x-crlf": "1" })).toEqual(expectations.parallel);
  });

  it("stream with every multi-byte character split across network chunks", async () => {
    const cuts = cutsInsideCharacters(fixtureBytes("openai-responses/utf8.sse"));
    expect(await streamed("utf8.sse", { "x-cut": cuts.join(",") })).toEqual(expectations.utf8);
  });

  it("passes an upstream error event through: the SDK raises the provider's error", async () => {
    await expect(streamed("error.sse")).rejects.toThrow(/server had an error/);
  });

  it("lets allowed streams through re-serialised canonically, every event kept", async () => {
    const text = await rawStream("text-tool.sse");
    expect(text).toMatch(canonicalStream);
    expect(readEvents(text)).toEqual(readEvents(fixtureBytes("openai-responses/text-tool.sse").toString()));
  });

  it("removes hosted MCP connectors when hostedMcp is Deny, with an audit event", async () => {
    const denyHosted = await import("./harness.ts").then(({ startHarness: start, testPolicy }) =>
      start(
        testPolicy.replace(
          "llm: { requireDeclaredTools: true }",
          "llm: { requireDeclaredTools: true, hostedMcp: Deny }",
        ),
      ),
    );
    try {
      const openai = new OpenAI({
        apiKey: "sk-test",
        baseURL: `${denyHosted.base("openai")}/v1`,
        maxRetries: 0,
        defaultHeaders: { "x-fixture": "openai-responses/text-only.json" },
      });
      await openai.responses.create({
        ...request,
        tools: [
          ...tools,
          {
            type: "mcp",
            server_label: "deepwiki",
            server_url: "https://mcp.deepwiki.com/mcp",
            require_approval: "never",
          },
        ],
      });
      const sent = JSON.parse(denyHosted.replay.requests.at(-1)!.body) as { tools: { type: string }[] };
      expect(sent.tools.map((t) => t.type)).toEqual(["function", "function", "function"]);
      expect(denyHosted.audit.events.find((e) => e.type === "hosted_mcp_connector")).toMatchObject({
        server: "deepwiki",
        url: "https://mcp.deepwiki.com/mcp",
        action: "deny",
      });
    } finally {
      await denyHosted.close();
    }
  });

  it("any re-chunking of every fixture gives the same SDK result", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(expectations)),
        fc.array(fc.nat({ max: 8000 }), { maxLength: 12 }),
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
