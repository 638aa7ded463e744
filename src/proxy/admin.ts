import Fastify, { type FastifyInstance } from "fastify";
import { metricsRegistry } from "../telemetry/metrics.ts";

/**
 * The admin endpoints (fastify: off the hot path): liveness, readiness (the caller says when it is
 * ready — policy loaded, listener bound — and when it stops being ready, e.g. while draining) and
 * Prometheus metrics from the shared registry.
 */
export function createAdminServer(isReady: () => boolean): FastifyInstance {
  const app = Fastify({ logger: false });
  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_request, reply) => {
    if (isReady()) return { status: "ready" };
    return reply.code(503).send({ status: "not ready" });
  });
  app.get("/metrics", async (_request, reply) => {
    reply.header("content-type", metricsRegistry.contentType);
    return metricsRegistry.metrics();
  });
  return app;
}
