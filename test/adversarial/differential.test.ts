import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEvents } from "../helpers/sse.ts";
import {
  type AdversarialRig,
  bashCall,
  type CallSpec,
  canonicalAnswer,
  isStreaming,
  runSdk,
  type SdkClient,
  sdkClients,
  startAdversarialRig,
} from "./sdk.ts";
import { rawAnswer } from "./upstream.ts";

/**
 * Differential fuzzing of response framing: for every official SDK, generated framings of a response
 * carrying a tool call (content types, duplicate headers, BOMs, line endings, multi-line and
 * continuation data, comments, extra fields, escaped keys, chunking, HTTP chunked framing, gzip,
 * deflate and br). Whatever call the SDK
 * ends up holding must be one the proxy decided to allow in that very exchange (an allowed
 * tool_call_intercepted audit event with the same name and arguments); a denied one never.
 */

let rig: AdversarialRig;
beforeAll(async () => {
  rig = await startAdversarialRig();
});
afterAll(() => rig.close());

interface Framing {
  contentTypes: string[];
  bomAtStart: boolean;
  bomOnLines: boolean;
  eol: "\n" | "\r\n" | "\r";
  prettyData: "no" | "data-lines" | "continuation-lines";
  comments: boolean;
  extraFields: boolean;
  noSpaceAfterColon: boolean;
  escapeKeys: boolean;
  encoding: "identity" | "gzip" | "deflate" | "br";
  chunked: boolean;
  cuts: number[];
}

const contentType = fc.constantFrom(
  "application/json",
  "text/event-stream",
  "text/event-stream; charset=utf-8",
  "text/event-stream+json",
  "text/event-stream, application/json",
  "application/json, text/event-stream",
  "application/vnd.api+json",
  "text/plain",
  "application/octet-stream",
);

const framing: fc.Arbitrary<Framing> = fc.record({
  contentTypes: fc.array(contentType, { minLength: 1, maxLength: 2 }),
  bomAtStart: fc.boolean(),
  bomOnLines: fc.boolean(),
  eol: fc.constantFrom("\n" as const, "\r\n" as const, "\r" as const),
  prettyData: fc.constantFrom("no" as const, "data-lines" as const, "continuation-lines" as const),
  comments: fc.boolean(),
  extraFields: fc.boolean(),
  noSpaceAfterColon: fc.boolean(),
  escapeKeys: fc.boolean(),
  encoding: fc.constantFrom("identity" as const, "gzip" as const, "deflate" as const, "br" as const),
  chunked: fc.boolean(),
  cuts: fc.array(fc.nat({ max: 3000 }), { maxLength: 8 }),
});

const call: fc.Arbitrary<CallSpec> = fc.oneof(
  fc.constant(bashCall),
  fc.constant({ name: "delete_repo", arguments: { repo: "acme/prod" } }),
  fc.record({
    name: fc.constant("get_weather"),
    arguments: fc.record({ city: fc.constantFrom("Paris", "Zürich — 日本 🎉", 'a"b\\c', "") }),
  }),
);

/** Escapes the characters a key or name is made of; JSON reads them the same. */
function escapeKeys(text: string): string {
  return text.replace(
    /"(functionCall|tool_calls|tool_use|function_call|name|type|Bash|delete_repo)"/g,
    (_, word: string) =>
      JSON.stringify(word).replace(/[a-z_]/, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`),
  );
}

function frameStream(client: SdkClient, spec: CallSpec, f: Framing): string {
  const sep = f.noSpaceAfterColon ? ":" : ": ";
  const bom = f.bomOnLines ? "\uFEFF" : "";
  let out = f.bomAtStart ? "\uFEFF" : "";
  for (const event of readEvents(canonicalAnswer(client, spec))) {
    const lines: string[] = [];
    if (f.comments) lines.push(": keep-alive");
    if (event.event !== undefined) lines.push(`event${sep}${event.event}`);
    if (f.extraFields) lines.push("id: 7", "retry: 1000");
    const data =
      typeof event.data === "string"
        ? event.data
        : JSON.stringify(event.data, null, f.prettyData === "no" ? 0 : 1);
    const dataLines = data.split("\n");
    if (f.prettyData === "continuation-lines") lines.push(`data${sep}${dataLines[0]}`, ...dataLines.slice(1));
    else lines.push(...dataLines.map((line) => `data${sep}${line}`));
    out += lines.map((line) => bom + line + f.eol).join("") + f.eol;
  }
  return f.escapeKeys ? escapeKeys(out) : out;
}

function frameJson(client: SdkClient, spec: CallSpec, f: Framing): string {
  const value = JSON.parse(canonicalAnswer(client, spec)) as unknown;
  const text = `${f.bomAtStart ? "\uFEFF" : ""}${JSON.stringify(value, null, f.prettyData === "no" ? 0 : 1)}`;
  return f.escapeKeys ? escapeKeys(text) : text;
}

function sameArguments(held: unknown, audited: unknown): boolean {
  return JSON.stringify(held) === JSON.stringify(audited);
}

describe("differential framing fuzzer", () => {
  it.each(sdkClients)("%s holds only calls the proxy allowed in that exchange", async (client) => {
    let allowedAndHeld = 0;
    await fc.assert(
      fc.asyncProperty(call, framing, async (spec, f) => {
        const body = isStreaming(client) ? frameStream(client, spec, f) : frameJson(client, spec, f);
        rig.upstream.respond = () =>
          rawAnswer({
            headers: f.contentTypes.map((type) => ["content-type", type] as const),
            body,
            ...(f.encoding === "identity" ? {} : { encoding: f.encoding }),
            ...(f.chunked ? { transferEncoding: "chunked" as const } : {}),
            chunks: f.cuts,
          });
        const before = rig.audit.events.length;
        const outcome = await runSdk(rig, client);
        const allowed = rig.audit.events
          .slice(before)
          .filter((event) => event.type === "tool_call_intercepted" && event.action === "allow");
        for (const held of outcome.calls) {
          const judged = allowed.some(
            (event) => event.tool === held.name && sameArguments(held.arguments, event.input),
          );
          expect(judged, `${client} holds ${JSON.stringify(held)} that the proxy did not allow`).toBe(true);
          allowedAndHeld++;
        }
      }),
      { numRuns: 100 },
    );
    // Not vacuous: the well-formed framings among those generated do deliver allowed calls.
    expect(allowedAndHeld).toBeGreaterThan(0);
  });
});
