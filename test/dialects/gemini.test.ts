import { type GenerateContentResponse, GoogleGenAI, Type } from "@google/genai";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureBytes } from "../helpers/replay.ts";
import { blockText, cutsInsideCharacters, type Harness, startHarness } from "./harness.ts";

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());

const functionDeclarations = ["get_weather", "delete_file", "Bash"].map((name) => ({
  name,
  description: `${name} tool`,
  parameters: { type: Type.OBJECT, properties: {} },
}));

function client(fixture: string, extra: Record<string, string> = {}, baseUrl = harness.base("gemini")) {
  return new GoogleGenAI({
    apiKey: "AIza-test-gemini-key",
    httpOptions: { baseUrl, headers: { "x-fixture": `gemini/${fixture}`, ...extra } },
  });
}

const request = {
  model: "gemini-2.5-flash",
  contents: "What's the weather in Paris?",
  config: { tools: [{ functionDeclarations }] },
};

interface Summary {
  text: string;
  calls: { call: string | undefined; input: unknown }[];
}

function summarise(responses: GenerateContentResponse[]): Summary {
  const summary: Summary = { text: "", calls: [] };
  for (const response of responses) {
    for (const part of response.candidates?.[0]?.content?.parts ?? []) {
      if (part.functionCall)
        summary.calls.push({ call: part.functionCall.name, input: part.functionCall.args });
      else if (part.text !== undefined && !part.thought) summary.text += part.text;
    }
  }
  return summary;
}

async function streamed(fixture: string, extra: Record<string, string> = {}, baseUrl?: string) {
  const responses: GenerateContentResponse[] = [];
  for await (const response of await client(fixture, extra, baseUrl).models.generateContentStream(request)) {
    responses.push(response);
  }
  return summarise(responses);
}

const weather = { call: "get_weather", input: { city: "Paris", unit: "celsius" } };

const expectations: Record<string, Summary> = {
  allowed: { text: "", calls: [weather] },
  "blocked-name": { text: blockText.deleteFile, calls: [] },
  "blocked-args": { text: blockText.bash, calls: [] },
  parallel: { text: `I will check both.${blockText.deleteFile}`, calls: [weather] },
  "blocked-first": { text: blockText.deleteFile, calls: [weather] },
  "text-tool": { text: "Let me look up the weather for you.", calls: [weather] },
  "thinking-tool": { text: "", calls: [weather] },
  utf8: {
    text: "Grüße aus Köln — 日本語のテキスト 🎉🎉",
    calls: [{ call: "get_weather", input: { city: "Zürich — 日本 🎉" } }],
  },
  "text-only": { text: "Hello! Nothing to call here.", calls: [] },
  truncated: { text: `Cleaning up.${blockText.bashTruncated}`, calls: [] },
};

async function arrayStream(fixture: string, extra: Record<string, string> = {}): Promise<unknown[]> {
  const response = await fetch(
    `${harness.base("gemini")}/v1beta/models/gemini-2.5-flash:streamGenerateContent`,
    {
      method: "POST",
      headers: { "x-fixture": `gemini/${fixture}`, "content-type": "application/json", ...extra },
      body: JSON.stringify({
        contents: [{ role: "user", parts: [{ text: "hi" }] }],
        tools: [{ functionDeclarations }],
      }),
    },
  );
  return JSON.parse(await response.text()) as unknown[];
}

describe("Gemini through toolwall proxy (official SDK)", () => {
  for (const [fixture, expected] of Object.entries(expectations)) {
    it(`stream (alt=sse): ${fixture}`, async () => {
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
      const response = await client(`${fixture}.json`).models.generateContent(request);
      expect(summarise([response])).toEqual(expectations[fixture]);
    });
  }

  for (const fixture of ["parallel", "blocked-args", "text-tool", "truncated"]) {
    it(`stream without alt=sse (one JSON array): ${fixture}`, async () => {
      const elements = await arrayStream(`${fixture}.array.json`);
      expect(summarise(elements as GenerateContentResponse[])).toEqual(expectations[fixture]);
    });
  }

  it("keeps thoughtSignature on calls it lets through", async () => {
    const response = await client("allowed.json").models.generateContent(request);
    expect(response.candidates?.[0]?.content?.parts?.[0]?.thoughtSignature).toBe("CiQBVKhc7mZ0Ycq3f8Rd");
  });

  it("stream with every multi-byte character split across network chunks", async () => {
    const cuts = cutsInsideCharacters(fixtureBytes("gemini/utf8.sse"));
    expect(await streamed("utf8.sse", { "x-cut": cuts.join(",") })).toEqual(expectations.utf8);
  });

  it("an upstream error passes through as the SDK would see it without the proxy", async () => {
    const direct = await streamed("error.sse", {}, harness.replay.url).catch((error: Error) => error.message);
    const proxied = await streamed("error.sse").catch((error: Error) => error.message);
    expect(proxied).toEqual(direct);
  });

  it("strips tools a policy denies unconditionally when stripDeniedTools is set", async () => {
    const { startHarness: start, testPolicy } = await import("./harness.ts");
    const stripping = await start(
      testPolicy.replace("llm: { requireDeclaredTools: true }", "llm: { stripDeniedTools: true }"),
    );
    try {
      await client("text-only.json", {}, stripping.base("gemini")).models.generateContent(request);
      const sent = JSON.parse(stripping.replay.requests.at(-1)!.body) as {
        tools: { functionDeclarations: { name: string }[] }[];
      };
      expect(sent.tools[0]!.functionDeclarations.map((d) => d.name)).toEqual(["get_weather", "Bash"]);
    } finally {
      await stripping.close();
    }
  });

  it("lets allowed streams through byte-identical", async () => {
    const response = await fetch(
      `${harness.base("gemini")}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`,
      {
        method: "POST",
        headers: { "x-fixture": "gemini/text-tool.sse", "content-type": "application/json" },
        body: JSON.stringify({
          contents: [{ role: "user", parts: [{ text: "hi" }] }],
          tools: [{ functionDeclarations }],
        }),
      },
    );
    expect(Buffer.from(await response.arrayBuffer()).equals(fixtureBytes("gemini/text-tool.sse"))).toBe(true);
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

describe("Gemini JSON-array stream under re-chunking", () => {
  it("any re-chunking of every array fixture gives the same elements", async () => {
    const fixtures = ["parallel", "blocked-args", "text-tool", "utf8", "blocked-first", "truncated"];
    const expected = new Map<string, Summary>();
    for (const fixture of fixtures)
      expected.set(
        fixture,
        summarise((await arrayStream(`${fixture}.array.json`)) as GenerateContentResponse[]),
      );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...fixtures),
        fc.array(fc.nat({ max: 4000 }), { maxLength: 12 }),
        async (fixture, cuts) => {
          const elements = await arrayStream(`${fixture}.array.json`, { "x-cut": cuts.join(",") });
          expect(summarise(elements as GenerateContentResponse[])).toEqual(expected.get(fixture));
        },
      ),
      { numRuns: 30 },
    );
  });
});
