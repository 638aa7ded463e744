import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AdversarialRig,
  bashCall,
  canonicalAnswer,
  expectNoDeniedCall,
  isStreaming,
  runSdk,
  type SdkClient,
  sdkClients,
  sseEvent,
  startAdversarialRig,
  weatherCall,
} from "./sdk.ts";
import { type Answer, type RawUpstream, rawAnswer, startRawUpstream } from "./upstream.ts";

/**
 * Issue 10, classes 1–4 and 10: the response bytes say one thing to the proxy and another to the
 * SDK (content type, BOMs, the Gemini stream reader, escaped keys, redirects). Whatever the framing,
 * the official SDK must end up without the denied `Bash` call.
 */

let rig: AdversarialRig;
/** A host outside the proxy that an absolute redirect points at. */
let elsewhere: RawUpstream;
beforeAll(async () => {
  rig = await startAdversarialRig();
  elsewhere = await startRawUpstream(() => rawAnswer({ status: 404 }));
});
afterAll(async () => {
  await rig.close();
  await elsewhere.close();
});

const unary = sdkClients.filter((client) => !isStreaming(client));
const streaming = sdkClients.filter(isStreaming);

interface Case {
  name: string;
  clients: readonly SdkClient[];
  answer(client: SdkClient, path: string): Answer;
}

const bash = (client: SdkClient) => canonicalAnswer(client, bashCall);

/** Escapes the key and name characters a raw-text pre-filter looks for; JSON still reads them the same. */
function escapeKeys(text: string): string {
  return text
    .replaceAll('"functionCall"', '"function\\u0043all"')
    .replaceAll('"tool_calls"', '"tool\\u005fcalls"')
    .replaceAll('"tool_use"', '"tool\\u005fuse"')
    .replaceAll('"function_call"', '"function\\u005fcall"')
    .replaceAll('"Bash"', '"B\\u0061sh"');
}

const bom = "\uFEFF";

const cases: Case[] = [
  // Class 1: the content type decides the framing differently.
  ...["text/event-stream+json", "text/event-stream, application/json", "text/plain", "text/event-stream"].map(
    (type): Case => ({
      name: `JSON labelled '${type}'`,
      clients: unary,
      answer: (client) => rawAnswer({ headers: [["content-type", type]], body: bash(client) }),
    }),
  ),
  {
    name: "JSON with two Content-Type headers (event stream first)",
    clients: unary,
    answer: (client) =>
      rawAnswer({
        headers: [
          ["content-type", "text/event-stream"],
          ["content-type", "application/json"],
        ],
        body: bash(client),
      }),
  },
  ...["application/json", "text/plain", "application/octet-stream"].map(
    (type): Case => ({
      name: `stream labelled '${type}'`,
      clients: streaming,
      answer: (client) => rawAnswer({ headers: [["content-type", type]], body: bash(client) }),
    }),
  ),
  // Class 2: byte order marks.
  {
    name: "BOM before a JSON body",
    clients: unary,
    answer: (client) => rawAnswer({ body: bom + bash(client) }),
  },
  {
    name: "BOM at the start of the stream",
    clients: streaming,
    answer: (client) =>
      rawAnswer({ headers: [["content-type", "text/event-stream"]], body: bom + bash(client) }),
  },
  {
    name: "BOM at the start of every line",
    clients: streaming,
    answer: (client) =>
      rawAnswer({
        headers: [["content-type", "text/event-stream"]],
        body: bash(client).replace(/^(?=.)/gm, bom),
      }),
  },
  {
    name: "BOM-only lines instead of blank lines",
    clients: streaming,
    answer: (client) =>
      rawAnswer({
        headers: [["content-type", "text/event-stream"]],
        body: bash(client).replaceAll("\n\n", `\n${bom}\n`),
      }),
  },
  // Class 3: the Gemini SDK's own stream reader (everything after the first `data:`, trimmed).
  {
    name: "JSON spread over several lines after one data:",
    clients: ["gemini.stream"],
    answer: (client) => {
      const body = JSON.parse(bash(client).slice("data: ".length)) as unknown;
      return rawAnswer({
        headers: [["content-type", "text/event-stream"]],
        body: `data: ${JSON.stringify(body, null, 1)}\n\n`,
      });
    },
  },
  {
    name: "whitespace and a stray line before data:",
    clients: ["gemini.stream"],
    answer: (client) =>
      rawAnswer({ headers: [["content-type", "text/event-stream"]], body: `  \n\t${bash(client)}` }),
  },
  {
    name: "data: with leading whitespace and CR-only line endings",
    clients: ["gemini.stream"],
    answer: (client) =>
      rawAnswer({
        headers: [["content-type", "text/event-stream"]],
        body: bash(client).replace("data: ", "data:   ").replaceAll("\n", "\r"),
      }),
  },
  // Class 4: escaped keys and names.
  {
    name: "escaped keys and names",
    clients: sdkClients,
    answer: (client) =>
      rawAnswer({
        headers: [["content-type", isStreaming(client) ? "text/event-stream" : "application/json"]],
        body: escapeKeys(bash(client)),
      }),
  },
  // Class 10: redirects.
  ...[301, 302, 303, 307, 308].map(
    (status): Case => ({
      name: `${status} to another host`,
      clients: sdkClients,
      answer: () =>
        rawAnswer({ status, reason: "Moved", headers: [["location", `${elsewhere.url}/v1/generate`]] }),
    }),
  ),
  ...[307, 308].map(
    (status): Case => ({
      name: `${status} to a relative path next to the judged one`,
      clients: sdkClients,
      answer: (client, path) =>
        path.includes("elsewhere")
          ? rawAnswer({
              headers: [["content-type", isStreaming(client) ? "text/event-stream" : "application/json"]],
              body: bash(client),
            })
          : rawAnswer({ status, reason: "Moved", headers: [["location", "elsewhere"]] }),
    }),
  ),
];

describe.each(cases)("$name", ({ clients, answer }) => {
  it.each(clients)("%s holds no denied call", async (client) => {
    rig.upstream.respond = (request) => answer(client, request.path);
    elsewhere.respond = () =>
      rawAnswer({
        headers: [["content-type", isStreaming(client) ? "text/event-stream" : "application/json"]],
        body: bash(client),
      });
    const outcome = await runSdk(rig, client);
    expectNoDeniedCall(outcome);
  });
});

describe("a stream that is not what the proxy can judge", () => {
  it.each(streaming)(
    "%s: the SDK raises the refusal (error naming the problem) and an audit event is written",
    async (client) => {
      const events = canonicalAnswer(client, bashCall).split(/(?<=\n\n)/);
      rig.upstream.respond = () =>
        rawAnswer({
          headers: [["content-type", "text/event-stream"]],
          body: [events[0], "data: not json\n\n", ...events.slice(1)].join(""),
        });
      const before = rig.audit.events.length;
      const outcome = await runSdk(rig, client);
      expectNoDeniedCall(outcome);
      expect(outcome.error).toMatch(/Toolwall refused .*not JSON/);
      const refused = rig.audit.events.slice(before).filter((event) => event.type === "llm_response_refused");
      expect(refused).toMatchObject([{ rule: "not json", action: "deny" }]);
    },
  );
});

describe("a JSON-array stream that is not what the proxy can judge", () => {
  it("is closed as a complete array whose last element is the dialect's error, and audited", async () => {
    const element = JSON.parse(canonicalAnswer("gemini.generate", weatherCall)) as unknown;
    rig.upstream.respond = () =>
      rawAnswer({
        headers: [["content-type", "application/json"]],
        body: `[${JSON.stringify(element)},\r\n{"candidates": nope}]`,
        // The good element arrives on its own, so it has gone out before the bad one is read.
        chunks: [JSON.stringify(element).length + 2],
        delayMs: 50,
      });
    const before = rig.audit.events.length;
    const response = await fetch(
      `${rig.proxy.url}/gemini/v1beta/models/gemini-2.5-flash:streamGenerateContent`,
      { method: "POST", headers: { "content-type": "application/json" }, body: "{}" },
    );
    const array = (await response.json()) as { error?: { code: number; message: string } }[];
    expect(array).toHaveLength(2);
    expect(array[1]!.error).toMatchObject({
      code: 502,
      message: expect.stringMatching(/Toolwall refused .*not JSON/),
    });
    expect(
      rig.audit.events.slice(before).filter((event) => event.type === "llm_response_refused"),
    ).toHaveLength(1);
  });
});

describe("streaming", () => {
  it("passes text on at once: the first event reaches the client while the upstream still waits", async () => {
    const text = [
      sseEvent(
        { type: "message_start", message: { id: "m", type: "message", role: "assistant", content: [] } },
        "message_start",
      ),
      sseEvent(
        { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
        "content_block_start",
      ),
      sseEvent(
        { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hello" } },
        "content_block_delta",
      ),
    ].join("");
    const rest = sseEvent({ type: "content_block_stop", index: 0 }, "content_block_stop");
    rig.upstream.respond = () => [
      ...rawAnswer({ headers: [["content-type", "text/event-stream"]], body: text, contentLength: false }),
      { bytes: Buffer.from(rest), delayMs: 3000 },
    ];
    const started = performance.now();
    const response = await fetch(`${rig.proxy.url}/anthropic/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ stream: true, messages: [] }),
    });
    const reader = response.body!.getReader();
    let received = "";
    while (!received.includes("Hello")) received += new TextDecoder().decode((await reader.read()).value);
    expect(performance.now() - started).toBeLessThan(2000);
    await reader.cancel();
  });
});
