/**
 * The webhook's HTTPS server: POST /mutate (AdmissionReview v1), /healthz, /readyz, /metrics.
 * The serving certificate is re-read when its files change, so a rotated Secret takes effect
 * without a restart.
 */
import { readFile } from "node:fs/promises";
import type { Server } from "node:https";
import Fastify, { type FastifyInstance } from "fastify";
import { Counter, Registry } from "prom-client";
import { BadAdmissionReview, parseAdmissionReview, review } from "./admission.ts";
import type { InjectionConfig } from "./inject.ts";

export interface WebhookServerOptions {
  host: string;
  port: number;
  tlsCertFile: string;
  tlsKeyFile: string;
  injection: InjectionConfig;
  /** How often the certificate files are checked for a rotation. */
  certReloadIntervalMs?: number;
  log?: (line: Record<string, unknown>) => void;
}

export interface WebhookServer {
  app: FastifyInstance;
  url: string;
  registry: Registry;
  close(): Promise<void>;
}

async function readPair(certFile: string, keyFile: string) {
  const [cert, key] = await Promise.all([readFile(certFile), readFile(keyFile)]);
  return { cert, key };
}

export async function startWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
  const log = options.log ?? ((line) => process.stdout.write(`${JSON.stringify(line)}\n`));
  let pair = await readPair(options.tlsCertFile, options.tlsKeyFile);
  const registry = new Registry();
  const admissions = new Counter({
    name: "toolwall_webhook_admissions_total",
    help: "Admission requests answered by the webhook, by operation and outcome.",
    labelNames: ["operation", "outcome"],
    registers: [registry],
  });
  const app = Fastify({
    https: { ...pair, minVersion: "TLSv1.2" },
    bodyLimit: 8 * 1024 * 1024,
    logger: false,
    return503OnClosing: true,
  });

  app.post("/mutate", async (request, reply) => {
    let admission: ReturnType<typeof parseAdmissionReview>;
    try {
      admission = parseAdmissionReview(request.body);
    } catch (error) {
      if (!(error instanceof BadAdmissionReview)) throw error;
      admissions.inc({ operation: "unknown", outcome: "error" });
      return reply.code(400).send({ error: error.message });
    }
    const operation = ["CREATE", "UPDATE", "DELETE", "CONNECT"].includes(admission.operation ?? "")
      ? (admission.operation as string)
      : "unknown";
    try {
      const result = review(admission, options.injection);
      admissions.inc({ operation, outcome: result.outcome });
      if (result.outcome === "rejected") {
        log({
          msg: "pod rejected",
          namespace: admission.namespace,
          uid: admission.uid,
          reason: result.review.response?.status?.message,
        });
      }
      return result.review;
    } catch (error) {
      // A failure here must not let the pod in un-injected: answer 500, failurePolicy Fail refuses it.
      admissions.inc({ operation, outcome: "error" });
      log({ msg: "admission failed", uid: admission.uid, error: (error as Error).message });
      return reply.code(500).send({ error: "internal error while reviewing the pod" });
    }
  });
  app.get("/healthz", async () => "ok");
  app.get("/readyz", async () => "ok");
  app.get("/metrics", async (_request, reply) => {
    reply.header("content-type", registry.contentType);
    return registry.metrics();
  });

  const reloadTimer = setInterval(async () => {
    try {
      const next = await readPair(options.tlsCertFile, options.tlsKeyFile);
      if (next.cert.equals(pair.cert) && next.key.equals(pair.key)) return;
      (app.server as Server).setSecureContext({ ...next, minVersion: "TLSv1.2" });
      pair = next;
      log({ msg: "serving certificate reloaded", file: options.tlsCertFile });
    } catch (error) {
      // Mid-rotation the kubelet may expose one new file before the other: keep the old pair.
      log({ msg: "serving certificate reload failed", error: (error as Error).message });
    }
  }, options.certReloadIntervalMs ?? 10_000);
  reloadTimer.unref();

  await app.listen({ host: options.host, port: options.port });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    app,
    registry,
    url: `https://${host}:${port}`,
    async close() {
      clearInterval(reloadTimer);
      await app.close();
    },
  };
}
