import { CappedMap } from "../../kernel/bounded-map.ts";
import type { JsonRpcResponse } from "./jsonrpc.ts";
import type { McpTarget } from "./routing.ts";

const maxSessions = 10_000;
const maxPendingPerSession = 1_000;

/** A listing request let through, awaiting its answer (which may come on another stream). */
export interface PendingListing {
  method: string;
  params: Record<string, unknown> | undefined;
  /** Sent by Toolwall itself (a re-check): the answer is reviewed and swallowed. */
  internal: boolean;
  /**
   * An answer was seen. The entry stays (bounded with the others): a second answer with the same id,
   * which a client might take instead of the first, is filtered too.
   */
  answered?: boolean;
}

/** A legacy HTTP+SSE session: its GET stream, where answers to its POSTs (and our denials) go. */
export interface LegacySession {
  target: McpTarget;
  /** The upstream POST endpoint of the session. */
  endpoint: URL;
  headers: Record<string, string | string[]>;
  pending: Map<string, PendingListing>;
  send(message: JsonRpcResponse): void;
}

/** The MCP session a server message belongs to: its id, and the legacy session when it is one. */
export interface SessionRef {
  id: string | undefined;
  legacy: LegacySession | undefined;
}

/** A session's listing requests let through and not yet answered (the oldest dropped past the cap). */
export const pendingListings = () => new CappedMap<string, PendingListing>(maxPendingPerSession);

/**
 * The MCP sessions the route knows: legacy HTTP+SSE sessions by their endpoint; per Streamable HTTP
 * session, the headers of its latest request (for re-checks) and its listing requests awaiting an
 * answer.
 */
export class McpSessions {
  readonly #legacy = new Map<string, LegacySession>();
  /** Headers of the latest POST per Streamable HTTP session, for re-checks after list_changed. */
  readonly #headers = new CappedMap<string, Record<string, string | string[]>>(maxSessions);
  /** Listing requests of each Streamable HTTP session still awaiting their answer. */
  readonly #pending = new CappedMap<string, Map<string, PendingListing>>(maxSessions);

  /** `<server>\0<session>`; a session id is only unique within its server. */
  key(server: string, session: string): string {
    return `${server.toLowerCase()}\0${session}`;
  }

  pendingFor(target: McpTarget, session: string): Map<string, PendingListing> {
    const key = this.key(target.server.name, session);
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = pendingListings();
      this.#pending.set(key, pending);
    }
    return pending;
  }

  remember(target: McpTarget, session: string, headers: Record<string, string | string[]>): void {
    this.#headers.set(this.key(target.server.name, session), headers);
  }

  headersOf(key: string): Record<string, string | string[]> | undefined {
    return this.#headers.get(key);
  }

  /** A Streamable HTTP session the server ended (DELETE answered with success). */
  end(target: McpTarget, session: string): void {
    const key = this.key(target.server.name, session);
    this.#pending.delete(key);
    this.#headers.delete(key);
  }

  #legacyKey(server: string, url: URL): string {
    return `${server.toLowerCase()}\0${url.pathname}${url.search}`;
  }

  /** The legacy session whose POST endpoint is `url`, if one is open. */
  legacyAt(server: string, url: URL): LegacySession | undefined {
    return this.#legacy.get(this.#legacyKey(server, url));
  }

  openLegacy(legacy: LegacySession): void {
    this.#legacy.set(this.#legacyKey(legacy.target.server.name, legacy.endpoint), legacy);
  }

  closeLegacy(legacy: LegacySession): void {
    this.#legacy.delete(this.#legacyKey(legacy.target.server.name, legacy.endpoint));
  }
}
