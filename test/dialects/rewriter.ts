import { isDeepStrictEqual } from "node:util";
import { expect } from "vitest";
import type { Decided } from "../../src/engine/decide.ts";
import type { ResponseSide, Turn } from "../../src/engine/dialect.ts";
import { ResponseRefused } from "../../src/engine/refusal.ts";
import type { Decision } from "../../src/policy/types.ts";

/**
 * Pure rewriter tests: a dialect's response side driven with bytes in, bytes out, under a turn that
 * records every decision. The policy mirrors harness.ts: `delete_file` denied by name, `Bash` denied
 * when its command matches `rm -rf` (so it is held until its arguments are complete), the rest allowed.
 */

export interface Judged {
  name: string;
  args: unknown;
  allowed: boolean;
}

export interface RecordingTurn extends Turn {
  judged: Judged[];
  refusals: string[];
}

const conditional = (name: string) => name === "Bash";

function denies(name: string, args: unknown, unreadable: boolean): boolean {
  if (name === "delete_file") return true;
  if (!conditional(name)) return false;
  if (unreadable) return true;
  const command = (args as { command?: unknown } | undefined)?.command;
  return typeof command === "string" && /rm\s+-rf/.test(command);
}

export function recordingTurn(dialect: string): RecordingTurn {
  const judged: Judged[] = [];
  const refusals: string[] = [];
  return {
    dialect,
    requestId: "req-test",
    offeredTools: new Set(["get_weather", "delete_file", "bash", "read"]),
    judged,
    refusals,
    preview: (name) => (name === "delete_file" ? "deny" : conditional(name) ? "conditional" : "allow"),
    async decide(name, args, options = {}) {
      const blocked = denies(name, args, options.argumentsUnreadable ?? false);
      const decision: Decision = blocked
        ? { action: "deny", reason: "test policy", rule: "test#0", mode: "Enforce" }
        : { action: "allow", reason: "", rule: "", mode: "Enforce" };
      const entry: Judged = { name, args, allowed: !blocked };
      judged.push(entry);
      const decided: Decided = {
        decision,
        blocked,
        server: undefined,
        tool: name,
        message: blocked ? `Tool '${name}' was blocked by policy` : "",
        record(seen) {
          // A call decided on its name is recorded with the arguments that went by.
          entry.args = seen;
        },
      };
      return decided;
    },
    refuse(reason) {
      refusals.push(reason);
    },
  };
}

/** Runs a stream through the dialect's rewriter, cut into network chunks at `cuts`. */
export async function rewriteStream(
  side: ResponseSide,
  turn: Turn,
  input: string | Buffer,
  options: { framing?: "sse" | "json-array"; cuts?: number[] } = {},
): Promise<Buffer> {
  const bytes = Buffer.isBuffer(input) ? input : Buffer.from(input);
  const out: Buffer[] = [];
  const rewriter = side.streamRewriter(turn, (b) => out.push(b), options.framing ?? "sse");
  const points = [...new Set((options.cuts ?? []).filter((c) => c > 0 && c < bytes.length))].sort(
    (a, b) => a - b,
  );
  let start = 0;
  for (const point of [...points, bytes.length]) {
    await rewriter.push(bytes.subarray(start, point));
    start = point;
  }
  await rewriter.end();
  return Buffer.concat(out);
}

/** The non-streaming path: the rewritten body, the original when unchanged, or the refusal. */
export async function rewriteBody(
  side: ResponseSide,
  turn: Turn,
  body: unknown,
): Promise<{ body: unknown } | { refused: string }> {
  try {
    return { body: (await side.rewriteJson(body, turn)) ?? body };
  } catch (error) {
    if (error instanceof ResponseRefused) return { refused: error.message };
    throw error;
  }
}

/** An SSE stream from events given as [event name or undefined, data]. */
export function sse(events: readonly (readonly [string | undefined, unknown])[]): string {
  return events
    .map(
      ([name, data]) =>
        `${name === undefined ? "" : `event: ${name}\n`}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`,
    )
    .join("");
}

/** A fetch that answers every request with the given body: the SDK parses exactly these bytes. */
export function fetchReturning(body: Buffer | string, contentType = "text/event-stream") {
  return async () =>
    new Response(new Uint8Array(Buffer.isBuffer(body) ? body : Buffer.from(body)), {
      status: 200,
      headers: { "content-type": contentType },
    });
}

/** Arguments the client itself failed to parse (the agent gets an exception, not a call). */
export const unreadable = Symbol("unreadable arguments");

export interface ExtractedCall {
  name: string;
  args: unknown;
}

/**
 * The property every dialect must hold: each call the SDK ends up with was judged and allowed, under
 * the same name and with the same arguments (`argsMustMatch: false` when the SDK only got a partial
 * snapshot, where the arguments of a call allowed by its name alone may be cut short).
 */
export function unjudgedCalls(
  extracted: readonly ExtractedCall[],
  turn: RecordingTurn,
  argsMustMatch = true,
): ExtractedCall[] {
  return extracted.filter(
    (call) =>
      !turn.judged.some(
        (j) =>
          j.allowed &&
          j.name === call.name &&
          // Arguments the client cannot parse give it no call to run with other arguments.
          (call.args === unreadable ||
            (!argsMustMatch && !conditional(call.name)) ||
            isDeepStrictEqual(j.args, call.args)),
      ),
  );
}

/** A rewritten stream as an SDK read it. */
export interface SdkReading {
  turn: RecordingTurn;
  calls: ExtractedCall[];
  complete: boolean;
  error?: string;
}

/**
 * A refused stream: the SDK holds no call that was not judged and allowed, the turn recorded one
 * refusal naming `reason`, and the SDK raised the refusal as an error.
 */
export function expectRefusal(result: SdkReading, reason: RegExp): void {
  expect(unjudgedCalls(result.calls, result.turn, result.complete)).toEqual([]);
  expect(result.turn.refusals).toEqual([expect.stringMatching(reason)]);
  expect(result.error).toMatch(/Toolwall refused the model's response/);
}
