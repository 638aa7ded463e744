import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AdversarialRig,
  bashCall,
  canonicalAnswer,
  expectNoDeniedCall,
  runSdk,
  sseEvent,
  startAdversarialRig,
  weatherCall,
} from "./sdk.ts";
import { rawAnswer } from "./upstream.ts";

/**
 * Issue 10, "Robustness" for LLM responses: every bound is enforced on what the proxy would hold or
 * expand, and the client gets an error that names the limit (no stack, no internal message).
 */

const limits = {
  maxResponseBytes: 1024 * 1024,
  maxEventBytes: 64 * 1024,
  maxHeldBytes: 32 * 1024,
  maxJsonDepth: 64,
};

let rig: AdversarialRig;
beforeAll(async () => {
  rig = await startAdversarialRig({ llm: { limits } });
});
afterAll(() => rig.close());

const anthropic = (base: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}/anthropic/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" || Buffer.isBuffer(body) ? body : JSON.stringify(body),
  });

function refusedEvents(before: number) {
  return rig.audit.events.slice(before).filter((event) => event.type === "llm_response_refused");
}

describe("LLM response bounds", () => {
  it("stops a decompression bomb by what it expands to", async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20));
    rig.upstream.respond = () => rawAnswer({ headers: [["content-encoding", "gzip"]], body: bomb });
    const before = rig.audit.events.length;
    const started = performance.now();
    const response = await anthropic(rig.proxy.url, { messages: [] });
    expect(response.status).toBe(502);
    expect(await response.text()).toContain(`larger than the limit of ${limits.maxEventBytes} bytes`);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(refusedEvents(before)).toHaveLength(1);
  });

  it("cuts a stream past the response size, with an error event the SDK raises", async () => {
    const text = (i: number) =>
      sseEvent(
        { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "x".repeat(1000 + i) } },
        "content_block_delta",
      );
    const start = canonicalAnswer("anthropic.stream", weatherCall).split("\n\n")[0];
    const body = `${start}\n\n${sseEvent({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, "content_block_start")}${Array.from({ length: 1200 }, (_, i) => text(i)).join("")}`;
    rig.upstream.respond = () =>
      rawAnswer({ headers: [["content-type", "text/event-stream"]], body, chunks: [100_000, 500_000] });
    const outcome = await runSdk(rig, "anthropic.stream");
    expect(outcome.error).toContain(
      `the response is larger than the limit of ${limits.maxResponseBytes} bytes`,
    );
  });

  it("refuses one event over the event size", async () => {
    const big = sseEvent(
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "y".repeat(100_000) } },
      "content_block_delta",
    );
    rig.upstream.respond = () =>
      rawAnswer({
        headers: [["content-type", "text/event-stream"]],
        body: big,
        chunks: Array.from({ length: 20 }, (_, i) => i * 5000),
      });
    const outcome = await runSdk(rig, "anthropic.stream");
    expect(outcome.error).toContain(`an event is larger than the limit of ${limits.maxEventBytes} bytes`);
  });

  it("refuses a tool call whose held arguments go past the held size", async () => {
    const parts = canonicalAnswer("anthropic.stream", bashCall).split("\n\n");
    const delta = (n: number) =>
      sseEvent(
        {
          type: "content_block_delta",
          index: 0,
          delta: { type: "input_json_delta", partial_json: n === 0 ? '{"command":"' : "a".repeat(4000) },
        },
        "content_block_delta",
      );
    const body = `${parts[0]}\n\n${parts[1]}\n\n${Array.from({ length: 20 }, (_, i) => delta(i)).join("")}`;
    rig.upstream.respond = () => rawAnswer({ headers: [["content-type", "text/event-stream"]], body });
    const outcome = await runSdk(rig, "anthropic.stream");
    expectNoDeniedCall(outcome);
    expect(outcome.error).toContain(`larger than the limit of ${limits.maxHeldBytes} bytes`);
  });

  it("refuses JSON nested past the depth limit, naming it", async () => {
    const deep = `{"content":${"[".repeat(5000)}${"]".repeat(5000)}}`;
    rig.upstream.respond = () => rawAnswer({ body: deep });
    const response = await anthropic(rig.proxy.url, { messages: [] });
    expect(response.status).toBe(502);
    const text = await response.text();
    expect(text).toContain(`nested deeper than the limit of ${limits.maxJsonDepth} levels`);
    expect(text).not.toMatch(/call stack|at .*\.ts:/);
  });

  it("answers a duplicate Content-Encoding with a clear error", async () => {
    rig.upstream.respond = () =>
      rawAnswer({
        headers: [
          ["content-encoding", "gzip"],
          ["content-encoding", "gzip"],
        ],
        body: gzipSync(gzipSync(canonicalAnswer("anthropic.create", bashCall))),
      });
    const response = await anthropic(rig.proxy.url, { messages: [] });
    expect(response.status).toBe(502);
    const text = await response.text();
    expect(text).toContain("Content-Encoding more than once");
    expect(text).not.toContain("is not a function");
  });

  it("answers an unknown or broken encoding with a clear error", async () => {
    rig.upstream.respond = () =>
      rawAnswer({
        headers: [["content-encoding", "zstd-nope"]],
        body: canonicalAnswer("anthropic.create", bashCall),
      });
    let response = await anthropic(rig.proxy.url, { messages: [] });
    expect(await response.text()).toContain('unsupported content encoding \\"zstd-nope\\"');
    rig.upstream.respond = () =>
      rawAnswer({
        headers: [["content-encoding", "gzip"]],
        body: canonicalAnswer("anthropic.create", bashCall),
      });
    response = await anthropic(rig.proxy.url, { messages: [] });
    expect(response.status).toBe(502);
    expect(await response.text()).toContain("the response body is not valid gzip");
  });

  it("decodes a gzip request body, judges it, and does not forward its Content-Encoding", async () => {
    rig.upstream.respond = () => rawAnswer({ body: canonicalAnswer("anthropic.create", weatherCall) });
    const before = rig.upstream.requests.length;
    const request = { model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] };
    const response = await anthropic(rig.proxy.url, gzipSync(JSON.stringify(request)), {
      "content-encoding": "gzip",
    });
    expect(response.status).toBe(200);
    const seen = rig.upstream.requests[before]!;
    expect(seen.headers["content-encoding"]).toBeUndefined();
    expect(seen.json).toEqual(request);
  });

  it("sends headers that describe the bytes sent, not the upstream's", async () => {
    const body = ` ${canonicalAnswer("anthropic.create", weatherCall)} `;
    rig.upstream.respond = () =>
      rawAnswer({
        headers: [
          ["content-type", "text/plain+json"],
          ["content-md5", "bogus"],
          ["etag", '"abc"'],
          ["x-request-id", "kept"],
        ],
        body,
        gzip: true,
      });
    const response = await anthropic(rig.proxy.url, { messages: [] });
    const text = await response.text();
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("content-encoding")).toBeNull();
    expect(response.headers.get("content-md5")).toBeNull();
    expect(response.headers.get("etag")).toBeNull();
    expect(response.headers.get("x-request-id")).toBe("kept");
    expect(Number(response.headers.get("content-length"))).toBe(Buffer.byteLength(text));
    expect(text).toBe(JSON.stringify(JSON.parse(body)));
  });
});

describe("LLM request bounds", () => {
  it("answers an undecodable or oversized compressed request body with a client error", async () => {
    let response = await anthropic(rig.proxy.url, Buffer.from("not gzip"), { "content-encoding": "gzip" });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("the request body is not valid gzip");
    const bomb = gzipSync(Buffer.alloc(80 * 1024 * 1024, 0x20));
    response = await anthropic(rig.proxy.url, bomb, { "content-encoding": "gzip" });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("within 67108864 bytes");
  });
});

describe("LLM request reading", () => {
  it("refuses a request nested past the depth limit, naming it", async () => {
    const response = await anthropic(rig.proxy.url, `{"messages":${"[".repeat(200)}${"]".repeat(200)}}`);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(`nested deeper than the limit of ${limits.maxJsonDepth} levels`);
  });

  it("reads a request with a BOM like the response side: its denied tools are stripped", async () => {
    const strip = await startAdversarialRig({
      policy: `
apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: { name: strip, namespace: agents }
spec:
  llm: { stripDeniedTools: true }
  toolPolicy:
    rules:
      - { action: Deny, tools: [Bash], reason: no shell }
`,
    });
    try {
      strip.upstream.respond = () => rawAnswer({ body: canonicalAnswer("anthropic.create", weatherCall) });
      const request = {
        model: "m",
        max_tokens: 10,
        messages: [{ role: "user", content: "hi" }],
        tools: [
          { name: "Bash", input_schema: { type: "object" } },
          { name: "get_weather", input_schema: { type: "object" } },
        ],
      };
      const response = await anthropic(strip.proxy.url, `\uFEFF${JSON.stringify(request)}`);
      expect(response.status).toBe(200);
      const tools = (strip.upstream.requests[0]!.json as { tools: { name: string }[] }).tools;
      expect(tools.map((tool) => tool.name)).toEqual(["get_weather"]);
    } finally {
      await strip.close();
    }
  });
});
