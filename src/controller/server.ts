import Fastify, { type FastifyInstance, type FastifyReply } from "fastify";
import { metricsRegistry } from "../telemetry/metrics.ts";
import { bundleAccessDenied, type TokenAuthenticator } from "./auth.ts";
import { bundlePushDuration, bundleRequests, bundleWaiters } from "./metrics.ts";
import type { ControllerModel, PodInfo } from "./model.ts";

export interface BundleServerOptions {
  authenticator: TokenAuthenticator;
  /** The model in force, or undefined until the informers have listed (then every request gets 503). */
  model: () => ControllerModel | undefined;
  /** Reads a pod the informer has not seen yet (just created). */
  fetchPod: (namespace: string, name: string) => Promise<PodInfo | undefined>;
  /** How long a request whose `since` is current waits for a change before 304. */
  pollTimeoutMs?: number;
  ready?: () => boolean;
  /** PEM certificate chain and key: serve HTTPS (the tokens sidecars send must not cross the network in clear). */
  tls?: { cert: string; key: string } | undefined;
  log?: (message: string) => void;
}

interface Waiter {
  namespace: string;
  pod: string;
  since: string;
  /** Called with the bundle's JSON when it changed, undefined on timeout or disconnect. */
  answer: (bundleJson: string | undefined) => void;
}

const namePattern = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/**
 * The controller's HTTP side: GET /v1/bundle (long-poll), /healthz, /readyz, /metrics.
 * `changed()` must be called after every model rebuild: it answers the waiters whose bundle changed.
 */
export class BundleServer {
  readonly app: FastifyInstance;
  readonly #options: BundleServerOptions;
  readonly #waiters = new Map<string, Set<Waiter>>();

  constructor(options: BundleServerOptions) {
    this.#options = options;
    this.app = Fastify({
      logger: false,
      keepAliveTimeout: 75_000,
      requestTimeout: 0,
      ...(options.tls ? { https: options.tls } : {}),
    }) as unknown as FastifyInstance;
    this.app.get("/healthz", async () => "ok");
    this.app.get("/readyz", async (_request, reply) => {
      const ready = (options.ready ?? (() => options.model() !== undefined))();
      return reply.code(ready ? 200 : 503).send(ready ? "ok" : "informers not synced");
    });
    this.app.get("/metrics", async (_request, reply) =>
      reply.type(metricsRegistry.contentType).send(await metricsRegistry.metrics()),
    );
    this.app.get("/v1/bundle", (request, reply) =>
      this.#bundle(request.query as Record<string, unknown>, request.headers.authorization, reply),
    );
  }

  waiting(): number {
    let count = 0;
    for (const set of this.#waiters.values()) count += set.size;
    return count;
  }

  /** Answers every waiter whose pod's bundle no longer has the hash it holds. */
  changed(): void {
    const model = this.#options.model();
    if (!model || this.#waiters.size === 0) return;
    const started = performance.now();
    let answered = 0;
    for (const [key, set] of this.#waiters) {
      const first = set.values().next().value;
      if (!first) continue;
      const pod = model.pod(first.namespace, first.pod);
      if (!pod) continue;
      const hash = model.bundleHashFor(pod);
      let json: string | undefined;
      for (const waiter of [...set]) {
        if (waiter.since === hash) continue;
        json ??= model.bundleJsonFor(pod).json;
        waiter.answer(json);
        answered += 1;
      }
      if (set.size === 0) this.#waiters.delete(key);
    }
    if (answered > 0) bundlePushDuration.observe((performance.now() - started) / 1000);
  }

  async #bundle(query: Record<string, unknown>, authorization: string | undefined, reply: FastifyReply) {
    const { namespace, pod: podName, since } = query;
    if (
      typeof namespace !== "string" ||
      !namePattern.test(namespace) ||
      typeof podName !== "string" ||
      !namePattern.test(podName)
    ) {
      bundleRequests.inc({ result: "bad_request" });
      return reply.code(400).send({ error: "namespace and pod query parameters are required" });
    }
    const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1];
    if (!token) {
      bundleRequests.inc({ result: "unauthenticated" });
      return reply
        .code(401)
        .send({ error: "a bearer token (projected service-account token, audience toolwall) is required" });
    }
    let auth: Awaited<ReturnType<TokenAuthenticator["authenticate"]>>;
    try {
      auth = await this.#options.authenticator.authenticate(token);
    } catch (error) {
      bundleRequests.inc({ result: "unavailable" });
      this.#options.log?.(`TokenReview failed: ${(error as Error).message}`);
      return reply.code(503).header("retry-after", "2").send({ error: "cannot verify the token now" });
    }
    if (!auth.ok) {
      bundleRequests.inc({ result: "unauthenticated" });
      return reply.code(401).send({ error: auth.message });
    }
    const model = this.#options.model();
    if (!model) {
      bundleRequests.inc({ result: "unavailable" });
      return reply.code(503).header("retry-after", "1").send({ error: "controller is not synced yet" });
    }
    let pod = model.pod(namespace, podName);
    if (!pod && auth.identity.namespace === namespace && auth.identity.podName === podName) {
      pod = await this.#options.fetchPod(namespace, podName).catch(() => undefined);
    }
    const denied = bundleAccessDenied(auth.identity, namespace, podName, pod);
    if (denied || !pod) {
      bundleRequests.inc({ result: "forbidden" });
      return reply.code(403).send({ error: denied });
    }
    const current = this.#options.model() ?? model;
    const hash = current.bundleHashFor(pod);
    if (since !== hash) {
      bundleRequests.inc({ result: "changed" });
      return reply.type("application/json").send(current.bundleJsonFor(pod).json);
    }
    // The client may ask for a shorter wait (`wait`, ms): a sidecar whose maxStaleness is shorter
    // than the long-poll must be confirmed before it expires.
    const pollMs = this.#options.pollTimeoutMs ?? 30_000;
    const asked = typeof query.wait === "string" ? Number(query.wait) : Number.NaN;
    const waitMs = Number.isFinite(asked) && asked >= 100 ? Math.min(asked, pollMs) : pollMs;
    const json = await this.#wait({ namespace, pod: podName, since: hash }, reply, waitMs);
    if (json) {
      bundleRequests.inc({ result: "changed" });
      return reply.type("application/json").send(json);
    }
    bundleRequests.inc({ result: "unchanged" });
    return reply.code(304).send();
  }

  #wait(target: Omit<Waiter, "answer">, reply: FastifyReply, waitMs: number): Promise<string | undefined> {
    const key = `${target.namespace}/${target.pod}`;
    return new Promise((resolve) => {
      let set = this.#waiters.get(key);
      if (!set) {
        set = new Set();
        this.#waiters.set(key, set);
      }
      const finish = (json: string | undefined) => {
        clearTimeout(timer);
        reply.raw.off("close", onClose);
        if (set.delete(waiter)) bundleWaiters.dec();
        if (set.size === 0 && this.#waiters.get(key) === set) this.#waiters.delete(key);
        resolve(json);
      };
      const waiter: Waiter = { ...target, answer: finish };
      const onClose = () => finish(undefined);
      const timer = setTimeout(() => finish(undefined), waitMs);
      set.add(waiter);
      bundleWaiters.inc();
      reply.raw.on("close", onClose);
    });
  }
}
