import Fastify, { type FastifyInstance } from "fastify";
import { Registry } from "prom-client";
import { metricsRegistry } from "../telemetry/metrics.ts";

export interface AdminServerOptions {
  /**
   * Clients other than loopback may GET /metrics, /healthz and /readyz only (404 for the rest): the
   * sidecar's admin port listens on the pod IP so Prometheus can scrape it and the kubelet probe it.
   */
  remoteMetricsAndProbesOnly?: boolean;
}

/**
 * What a client outside the pod may GET: Prometheus scrapes /metrics, the kubelet probes /healthz and
 * /readyz (they carry no data). Everything else stays loopback-only.
 */
const REMOTE_PATHS: ReadonlySet<string> = new Set(["/metrics", "/healthz", "/readyz"]);

function isLoopback(address: string | undefined): boolean {
  return address !== undefined && /^(127\.|::1$|::ffff:127\.)/.test(address);
}

/**
 * The admin endpoints (fastify: off the hot path): liveness, readiness (the caller says when it is
 * ready — policy loaded, listener bound — and when it stops being ready, e.g. while draining) and
 * Prometheus metrics from the shared registry.
 */
export function createAdminServer(
  isReady: () => boolean,
  more: readonly Registry[] = [],
  options: AdminServerOptions = {},
): FastifyInstance {
  const registry = more.length === 0 ? metricsRegistry : Registry.merge([metricsRegistry, ...more]);
  const app = Fastify({ logger: false });
  if (options.remoteMetricsAndProbesOnly) {
    app.addHook("onRequest", async (request, reply) => {
      if (isLoopback(request.socket.remoteAddress)) return;
      if (request.method === "GET" && REMOTE_PATHS.has(request.url.split("?")[0]!)) return;
      await reply.code(404).send({
        error: "only /metrics, /healthz and /readyz are served to clients outside the pod",
      });
    });
  }
  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_request, reply) => {
    if (isReady()) return { status: "ready" };
    return reply.code(503).send({ status: "not ready" });
  });
  app.get("/metrics", async (_request, reply) => {
    reply.header("content-type", registry.contentType);
    return registry.metrics();
  });
  return app;
}
