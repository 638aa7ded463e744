/**
 * The proxy core: a lean node:http server, a router by path prefix, and the context every route
 * handler gets.
 *
 * THE SEAM FOR OTHER DIALECTS (the MCP dialect mounts itself here):
 *
 *   const proxy = new ProxyServer(context);            // context: ProxyContext, see below
 *   proxy.mount("/mcp", async (req, res, route) => {   // serves /mcp and /mcp/<anything>
 *     // route.path   "/github/mcp"  (after the prefix, always starting with "/" or empty)
 *     // route.search "?x=1"         (query string, with "?", or "")
 *     // route.requestId             a fresh id for this request (audit `requestId`)
 *     // route.signal                aborted when the client goes away: pass it to upstream calls
 *     // route.context               the ProxyContext:
 *     //   .policies()               the PolicySet in force (may change between requests: call per use)
 *     //   .audit                    AuditSink (emit JSON-line audit events)
 *     //   .registry                 SessionToolRegistry (observe(server, toolNames) after tools/list)
 *     //   .decide(request, opts)    the shared decision step (src/engine/decide.ts): evaluates,
 *     //                             runs the state-store check, audits, counts metrics
 *     //   .upstream                 pooled undici client: request({url, method, headers, body, signal})
 *     //                             and relay(req, res, url, signal) for untouched forwarding
 *     //   .inspector                DefinitionInspector | undefined (tool definition findings)
 *     //   .identity                 {namespace, pod, session}
 *     //   .log(message)             a diagnostic line on stderr (never put secrets in it)
 *   });
 *
 * A handler owns the response: it must end it (or let it fail) and may throw; a throw before the
 * headers are sent becomes a 502 with a JSON error, after that the connection is cut.
 * The longest mounted prefix wins; a prefix matches the whole first segment(s) only ("/mcp" does not
 * match "/mcpx").
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type CallRequest,
  type DecideDependencies,
  type Decided,
  decide,
  type SessionIdentity,
  type StatefulCheck,
} from "../engine/decide.ts";
import type { DefinitionInspector } from "../engine/dialect.ts";
import { policyInspector } from "../engine/inspection.ts";
import type { SessionToolRegistry } from "../engine/registry.ts";
import type { VerdictStore } from "../inspect/judge.ts";
import type { PolicySet } from "../policy/evaluate.ts";
import type { AuditSink } from "../telemetry/audit.ts";
import type { Upstream } from "./upstream.ts";

export interface ProxyContext {
  policies(): PolicySet;
  audit: AuditSink;
  registry: SessionToolRegistry;
  upstream: Upstream;
  identity: SessionIdentity;
  inspector?: DefinitionInspector | undefined;
  decide(request: CallRequest, options?: { deferRecord?: boolean }): Promise<Decided>;
  log(message: string): void;
}

export interface ProxyContextOptions {
  policies: PolicySet | (() => PolicySet);
  audit: AuditSink;
  registry: SessionToolRegistry;
  upstream: Upstream;
  identity: SessionIdentity;
  /** Defaults to the inspection engine run with each policy's `inspection` settings. */
  inspector?: DefinitionInspector;
  /** Where the default inspector shares definitions' findings across pods (the state store). */
  findings?: VerdictStore;
  /** The state store's cross-server and rate-limit check (see StatefulCheck). */
  stateful?: StatefulCheck;
  log?: (message: string) => void;
}

export function createProxyContext(options: ProxyContextOptions): ProxyContext {
  const policies =
    typeof options.policies === "function" ? options.policies : () => options.policies as PolicySet;
  const deps: DecideDependencies = {
    policies,
    registry: options.registry,
    audit: options.audit,
    identity: options.identity,
    stateful: options.stateful,
  };
  return {
    policies,
    audit: options.audit,
    registry: options.registry,
    upstream: options.upstream,
    identity: options.identity,
    inspector:
      options.inspector ?? policyInspector(policies, options.audit, options.identity, options.findings),
    decide: (request, decideOptions) => decide(deps, request, decideOptions),
    log: options.log ?? ((message) => process.stderr.write(`${message}\n`)),
  };
}

export interface RouteContext {
  context: ProxyContext;
  prefix: string;
  path: string;
  search: string;
  requestId: string;
  signal: AbortSignal;
}

export type RouteHandler = (req: IncomingMessage, res: ServerResponse, route: RouteContext) => Promise<void>;

/**
 * The one writer of Toolwall's own JSON error answer (`{"error":{"type":"toolwall_error",…}}`): the
 * local proxy's routes, the data plane's pipeline and the MCP route all answer through it. After the
 * head is sent, no answer can be written: the response is cut.
 */
export function sendToolwallError(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ error: { type: "toolwall_error", message } });
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

export class ProxyServer {
  readonly context: ProxyContext;
  readonly server: Server;
  readonly #routes: { prefix: string; handler: RouteHandler }[] = [];
  readonly #open = new Set<ServerResponse>();
  #draining = false;
  #absoluteForm: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | undefined;

  constructor(context: ProxyContext) {
    this.context = context;
    this.server = createServer({ keepAliveTimeout: 65_000, requestTimeout: 0 }, (req, res) =>
      this.#handle(req, res),
    );
  }

  /** Routes requests whose path is `prefix` or starts with `prefix/` to `handler`. */
  mount(prefix: string, handler: RouteHandler): void {
    if (!/^\/[^/?#]+(\/[^/?#]+)*$/.test(prefix)) throw new Error(`invalid route prefix '${prefix}'`);
    this.#routes.push({ prefix, handler });
    this.#routes.sort((a, b) => b.prefix.length - a.prefix.length);
  }

  /** Explicit forward-proxy mode: requests in absolute form (`GET http://host/path`) go to `handler`. */
  handleAbsoluteForm(handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>): void {
    this.#absoluteForm = handler;
  }

  /** Number of requests whose responses are still open (streams in flight). */
  get openRequests(): number {
    return this.#open.size;
  }

  async listen(host: string, port: number): Promise<AddressInfo> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, host, () => {
        this.server.off("error", reject);
        resolve();
      });
    });
    return this.server.address() as AddressInfo;
  }

  /** Stops accepting, lets open requests (streams) finish, up to `timeoutMs`, then cuts the rest. */
  async drain(timeoutMs = 30_000): Promise<void> {
    this.#draining = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    const deadline = Date.now() + timeoutMs;
    while (this.#open.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    this.server.closeAllConnections();
    await closed;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? "/";
    if (this.#absoluteForm && !url.startsWith("/")) {
      this.#open.add(res);
      res.on("close", () => this.#open.delete(res));
      await this.#absoluteForm(req, res).catch((error: Error) => sendToolwallError(res, 502, error.message));
      return;
    }
    const queryAt = url.indexOf("?");
    const pathname = queryAt < 0 ? url : url.slice(0, queryAt);
    const search = queryAt < 0 ? "" : url.slice(queryAt);
    const route = this.#routes.find(
      (r) => pathname === r.prefix || (pathname.startsWith(r.prefix) && pathname[r.prefix.length] === "/"),
    );
    if (!route) {
      sendToolwallError(
        res,
        404,
        `no route for ${pathname}; use /anthropic, /openai, /gemini or a mounted prefix`,
      );
      return;
    }
    if (this.#draining) res.setHeader("connection", "close");
    const abort = new AbortController();
    this.#open.add(res);
    res.on("close", () => {
      this.#open.delete(res);
      if (!res.writableFinished) abort.abort(new Error("client disconnected"));
    });
    try {
      await route.handler(req, res, {
        context: this.context,
        prefix: route.prefix,
        path: pathname.slice(route.prefix.length),
        search,
        requestId: randomUUID(),
        signal: abort.signal,
      });
    } catch (error) {
      if (abort.signal.aborted) return;
      this.context.log(`toolwall proxy: ${req.method} ${route.prefix}: ${(error as Error).message}`);
      sendToolwallError(res, 502, `toolwall: upstream failed: ${(error as Error).message}`);
    }
  }
}
