import Fastify, { type FastifyInstance } from "fastify";
import { Registry } from "prom-client";
import { metricsRegistry } from "../telemetry/metrics.ts";

/**
 * The admin endpoints (fastify: off the hot path): liveness, readiness (the caller says when it is
 * ready — policy loaded, listener bound — and when it stops being ready, e.g. while draining) and
 * Prometheus metrics from the shared registry.
 */
export function createAdminServer(isReady: () => boolean, more: readonly Registry[] = []): FastifyInstance {
  const registry = more.length === 0 ? metricsRegistry : Registry.merge([metricsRegistry, ...more]);
  const app = Fastify({ logger: false });
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
