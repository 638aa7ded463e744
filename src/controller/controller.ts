import { hostname } from "node:os";
import {
  AuthenticationV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  EventsV1Api,
  KubeConfig,
  type KubernetesObject,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  V1MicroTime,
} from "@kubernetes/client-node";
import { eventsRoute } from "../state/events-route.ts";
import { connectRedis, RedisStore } from "../state/redis.ts";
import { TokenAuthenticator } from "./auth.ts";
import { kubernetesEventsAuth, selfSubjectAccessReview } from "./events-auth.ts";
import { ResilientInformer } from "./informers.ts";
import { LeaderElector } from "./lease.ts";
import { policiesKnown, statusWrites } from "./metrics.ts";
import {
  type CheckedPolicy,
  ControllerModel,
  desiredStatus,
  type PodObject,
  type PolicyObject,
  podInfo,
  statusDiffers,
} from "./model.ts";
import { BundleServer } from "./server.ts";

export interface ControllerOptions {
  /** Path of a kubeconfig; in-cluster configuration when absent. */
  kubeconfig?: string | undefined;
  host?: string;
  port?: number;
  /** The controller's own namespace (where its Lease lives). */
  namespace: string;
  leaseName?: string;
  identity?: string;
  audience?: string;
  pollTimeoutMs?: number;
  resyncMs?: number;
  leaseDurationMs?: number;
  renewIntervalMs?: number;
  /** PEM files of the bundle server's certificate and key (HTTPS); plain HTTP when absent. */
  tls?: { cert: string; key: string } | undefined;
  /** Redis holding the audit streams: serve `GET /v1/events` from it (no events API when absent). */
  redisUrl?: string | undefined;
  /** Status writes are batched: at most one pass per this interval. */
  statusIntervalMs?: number;
  log?: (message: string) => void;
}

const group = "toolwall.io";
const version = "v1alpha1";
const plural = "mcppolicies";

export function loadKubeConfig(path: string | undefined): KubeConfig {
  const config = new KubeConfig();
  try {
    if (path) config.loadFromFile(path);
    else config.loadFromCluster();
  } catch (error) {
    throw new Error(
      `cannot load ${path ? `kubeconfig ${path}` : "in-cluster configuration"}: ${(error as Error).message}`,
    );
  }
  return config;
}

/**
 * `toolwall controller`: informers on MCPPolicy and Pod, the bundle endpoint, and, while it holds
 * the Lease, the MCPPolicy status writes.
 */
export class Controller {
  readonly server: BundleServer;
  readonly elector: LeaderElector;
  readonly #options: ControllerOptions;
  readonly #custom: CustomObjectsApi;
  readonly #policies: ResilientInformer<KubernetesObject>;
  readonly #pods: ResilientInformer<KubernetesObject>;
  readonly #auditReader: RedisStore | undefined;
  #model: ControllerModel | undefined;
  #rebuildScheduled = false;
  #events: EventsV1Api;
  #identity: string;
  #statusTimer: NodeJS.Timeout | undefined;
  #statusRunning = false;
  #statusAgain = false;
  #stopped = false;

  constructor(options: ControllerOptions) {
    this.#options = options;
    const config = loadKubeConfig(options.kubeconfig);
    this.#custom = config.makeApiClient(CustomObjectsApi);
    this.#events = config.makeApiClient(EventsV1Api);
    this.#identity = options.identity ?? `${hostname()}-${process.pid}`;
    const core = config.makeApiClient(CoreV1Api);
    const authentication = config.makeApiClient(AuthenticationV1Api);
    const log = options.log;
    const resyncMs = options.resyncMs ?? 300_000;
    const onChange = () => this.#scheduleRebuild();
    this.#policies = new ResilientInformer({
      resource: "mcppolicies",
      create: () =>
        makeInformer(config, `/apis/${group}/${version}/${plural}`, () =>
          this.#custom.listClusterCustomObject({ group, version, plural }),
        ),
      onChange,
      resyncMs,
      ...(log ? { log } : {}),
    });
    this.#pods = new ResilientInformer({
      resource: "pods",
      create: () => makeInformer(config, "/api/v1/pods", () => core.listPodForAllNamespaces()),
      onChange,
      resyncMs,
      ...(log ? { log } : {}),
    });
    const authenticator = new TokenAuthenticator({
      audience: options.audience ?? "toolwall",
      review: async (token, audiences) =>
        (await authentication.createTokenReview({ body: { spec: { token, audiences } } })).status ?? {},
    });
    this.server = new BundleServer({
      authenticator,
      model: () => this.#model,
      fetchPod: async (namespace, name) => {
        try {
          return podInfo((await core.readNamespacedPod({ namespace, name })) as PodObject);
        } catch {
          return undefined;
        }
      },
      ...(options.pollTimeoutMs !== undefined ? { pollTimeoutMs: options.pollTimeoutMs } : {}),
      tls: options.tls,
      ...(log ? { log } : {}),
    });
    if (options.redisUrl) {
      // Read straight from Redis, without the data plane's in-memory fallback: when Redis is away the
      // API answers 503 instead of an empty list.
      const reader = new RedisStore(connectRedis(options.redisUrl, { commandTimeoutMs: 2000 }));
      this.#auditReader = reader;
      void this.server.app.register(eventsRoute, {
        reader,
        authenticate: kubernetesEventsAuth(selfSubjectAccessReview(config), log),
      });
    }
    this.elector = new LeaderElector({
      api: config.makeApiClient(CoordinationV1Api),
      namespace: options.namespace,
      name: options.leaseName ?? "toolwall-controller",
      identity: this.#identity,
      ...(options.leaseDurationMs !== undefined ? { leaseDurationMs: options.leaseDurationMs } : {}),
      ...(options.renewIntervalMs !== undefined ? { renewIntervalMs: options.renewIntervalMs } : {}),
      onChange: (leader) => {
        if (leader) this.#scheduleStatus();
      },
      ...(log ? { log } : {}),
    });
  }

  /** Starts listening at once (readyz says 503 until synced), then lists, then campaigns for the Lease. */
  async start(): Promise<string> {
    const address = await this.server.app.listen({
      host: this.#options.host ?? "0.0.0.0",
      port: this.#options.port ?? 8443,
    });
    await Promise.all([this.#policies.start(), this.#pods.start()]);
    if (this.#stopped) return address;
    this.#rebuild();
    this.elector.start();
    return address;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#statusTimer);
    await this.elector.stop();
    await Promise.all([this.#policies.stop(), this.#pods.stop()]);
    await this.server.app.close();
    await this.#auditReader?.close();
  }

  model(): ControllerModel | undefined {
    return this.#model;
  }

  #scheduleRebuild(): void {
    if (this.#rebuildScheduled || !this.#policies.synced() || !this.#pods.synced()) return;
    this.#rebuildScheduled = true;
    setImmediate(() => {
      this.#rebuildScheduled = false;
      this.#rebuild();
    });
  }

  #rebuild(): void {
    if (this.#stopped) return;
    const model = new ControllerModel(
      this.#policies.list() as PolicyObject[],
      this.#pods.list() as PodObject[],
    );
    this.#model = model;
    const valid = model.policies.filter((p) => p.entry).length;
    policiesKnown.set({ state: "valid" }, valid);
    policiesKnown.set({ state: "invalid" }, model.policies.length - valid);
    this.server.changed();
    this.#scheduleStatus();
  }

  #scheduleStatus(): void {
    if (this.#statusTimer || this.#stopped || !this.elector.isLeader()) return;
    this.#statusTimer = setTimeout(() => {
      this.#statusTimer = undefined;
      void this.#writeStatuses();
    }, this.#options.statusIntervalMs ?? 250);
  }

  /**
   * A Warning Event on the policy (what `kubectl describe mcpp` and event exporters show), written once
   * per status change, like the status it accompanies. Best effort: the status holds the same text.
   */
  async #warn(policy: CheckedPolicy, reason: string, message: string, now: string): Promise<void> {
    try {
      await this.#events.createNamespacedEvent({
        namespace: policy.namespace,
        body: {
          // NAME.<hex time>, as client-go's recorder names events (generateName may not end in ".").
          metadata: {
            name: `${policy.name}.${(Date.now() * 1000).toString(16)}`,
            namespace: policy.namespace,
          },
          eventTime: new V1MicroTime(now),
          reportingController: "toolwall.io/controller",
          reportingInstance: this.#identity,
          action: "Compile",
          reason,
          type: "Warning",
          note: message.slice(0, 1024),
          regarding: {
            apiVersion: `${group}/${version}`,
            kind: "MCPPolicy",
            namespace: policy.namespace,
            name: policy.name,
            ...(policy.object.metadata?.uid ? { uid: policy.object.metadata.uid } : {}),
          },
        },
      });
    } catch (error) {
      this.#options.log?.(`event for ${policy.key}: ${(error as Error).message}`);
    }
  }

  async #writeStatuses(): Promise<void> {
    if (this.#statusRunning) {
      this.#statusAgain = true;
      return;
    }
    this.#statusRunning = true;
    try {
      const model = this.#model;
      if (!model) return;
      const now = new Date().toISOString();
      for (const policy of model.policies) {
        if (!this.elector.isLeader() || this.#stopped) return;
        const desired = desiredStatus(policy, model, now);
        if (!statusDiffers(policy.object.status, desired)) continue;
        try {
          await this.#custom.patchNamespacedCustomObjectStatus(
            {
              group,
              version,
              plural,
              namespace: policy.namespace,
              name: policy.name,
              body: { status: { ...desired, bundleHash: desired.bundleHash ?? null } },
            },
            setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
          );
          statusWrites.inc({ result: "ok" });
          const failed = desired.conditions?.find((c) => c.type === "Compiled" && c.status === "False");
          if (failed) await this.#warn(policy, failed.reason, failed.message, now);
        } catch (error) {
          statusWrites.inc({ result: "error" });
          this.#options.log?.(`status of ${policy.key}: ${(error as Error).message}`);
        }
      }
    } finally {
      this.#statusRunning = false;
      if (this.#statusAgain) {
        this.#statusAgain = false;
        this.#scheduleStatus();
      }
    }
  }
}
