import type { Dispatcher } from "undici";
import { SseParser } from "../../codecs/sse.ts";
import type { UpstreamRequest } from "../../net/upstream.ts";
import type { McpContext, McpGate } from "./gate.ts";
import { contentType, isObject, maxJsonResponseBytes, readLimited } from "./http.ts";
import { idKey, type JsonRpcResponse, parseJson } from "./jsonrpc.ts";
import type { McpTarget } from "./routing.ts";
import type { LegacySession, McpSessions, SessionRef } from "./sessions.ts";

const maxRecheckPages = 50;

export interface RecheckDependencies {
  gate: McpGate;
  sessions: McpSessions;
  /** The route's upstream request (no body timeout, no redirects). */
  request(request: UpstreamRequest): Promise<Dispatcher.ResponseData>;
  log(message: string): void;
}

/**
 * `notifications/tools/list_changed`: Toolwall lists the server's tools itself at once, so pins and
 * facts follow the change before the client lists again. Streamable HTTP: with the session's last
 * headers, every page; legacy HTTP+SSE: through the session's endpoint, the answer (which arrives on
 * the session's stream) reviewed and swallowed there, page after page.
 */
export class Rechecker {
  readonly #deps: RecheckDependencies;
  readonly #rechecking = new Set<string>();
  #seq = 0;

  constructor(deps: RecheckDependencies) {
    this.#deps = deps;
  }

  listChanged(context: McpContext, target: McpTarget, session: SessionRef): void {
    const key = this.#deps.sessions.key(target.server.name, session.id ?? "");
    if (this.#rechecking.has(key)) return;
    if (session.legacy) {
      this.sendLegacy(session.legacy, undefined);
      return;
    }
    const headers = session.id ? this.#deps.sessions.headersOf(key) : undefined;
    if (session.id && !headers) return;
    this.#rechecking.add(key);
    this.#relist(context, target, headers ?? {})
      .catch((error: Error) =>
        this.#deps.log(
          `toolwall mcp: ${target.server.name}: re-check after list_changed failed: ${error.message}`,
        ),
      )
      .finally(() => this.#rechecking.delete(key));
  }

  /** One `tools/list` page asked through a legacy session's endpoint; its answer comes on the stream. */
  sendLegacy(legacy: LegacySession, cursor: string | undefined): void {
    const id = `toolwall-recheck-${++this.#seq}`;
    const params = cursor === undefined ? undefined : { cursor };
    legacy.pending.set(idKey(id), { method: "tools/list", params, internal: true });
    const body = JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", ...(params ? { params } : {}) });
    this.#deps
      .request({
        url: legacy.endpoint,
        method: "POST",
        headers: { ...legacy.headers, "content-type": "application/json" },
        body: Buffer.from(body),
        signal: AbortSignal.timeout(30_000),
      })
      .then((response) => response.body.dump())
      .catch((error: Error) =>
        this.#deps.log(`toolwall mcp: ${legacy.target.server.name}: re-check failed: ${error.message}`),
      );
  }

  async #relist(context: McpContext, target: McpTarget, headers: Record<string, string | string[]>) {
    let cursor: string | undefined;
    for (let page = 0; page < maxRecheckPages; page++) {
      const id = `toolwall-recheck-${++this.#seq}`;
      const params = cursor === undefined ? undefined : { cursor };
      const response = await this.#deps.request({
        url: target.url,
        method: "POST",
        headers: {
          ...headers,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: Buffer.from(
          JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", ...(params ? { params } : {}) }),
        ),
        signal: AbortSignal.timeout(30_000),
      });
      const answer = await readAnswer(response, id);
      if (!answer || !isObject(answer.result)) return;
      const result = await this.#deps.gate.filterResult(context, "tools/list", params, answer.result);
      const next = isObject(result) ? result.nextCursor : undefined;
      if (typeof next !== "string") return;
      cursor = next;
    }
  }
}

/** The response with `id` in a JSON or SSE answer to a POST. */
async function readAnswer(
  response: Dispatcher.ResponseData,
  id: string,
): Promise<JsonRpcResponse | undefined> {
  const body = await readLimited(response.body, maxJsonResponseBytes, "re-check answer");
  if (response.statusCode >= 300) return undefined;
  const find = (value: unknown): JsonRpcResponse | undefined => {
    const items = Array.isArray(value) ? value : [value];
    return items.find((item) => isObject(item) && idKey(item.id) === idKey(id)) as
      | JsonRpcResponse
      | undefined;
  };
  if (contentType(response.headers) === "text/event-stream") {
    const parser = new SseParser();
    for (const event of [...parser.push(body), ...parser.end()]) {
      if (event.data === undefined) continue;
      try {
        const found = find(parseJson(event.data, "re-check answer"));
        if (found) return found;
      } catch {}
    }
    return undefined;
  }
  try {
    return find(parseJson(body.toString("utf8"), "re-check answer"));
  } catch {
    return undefined;
  }
}
