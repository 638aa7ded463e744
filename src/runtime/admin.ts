import Fastify, { type FastifyInstance } from "fastify";
import { Registry } from "prom-client";
import { metricsRegistry } from "../telemetry/metrics.ts";

export interface AdminServerOptions {
  /**
   * Clients other than loopback may GET /metrics only (404 for the rest): the sidecar's admin port
   * listens on the pod IP so Prometheus can scrape it, while health and readiness stay in the pod.
   */
  remoteMetricsOnly?: boolean;
}

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
  if (options.remoteMetricsOnly) {
    app.addHook("onRequest", async (request, reply) => {
      if (isLoopback(request.socket.remoteAddress)) return;
      if (request.method === "GET" && request.url.split("?")[0] === "/metrics") return;
      await reply.code(404).send({ error: "only /metrics is served to clients outside the pod" });
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
