import { readFileSync } from "node:fs";
import { parseDuration } from "../kernel/duration.ts";
import { addressFlag, type Command, UsageError } from "./args.ts";

const inClusterNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

function listenFlag(text: string): { host: string; port: number } {
  return addressFlag("listen", text, "0.0.0.0");
}

function durationFlag(values: Record<string, unknown>, name: string): number | undefined {
  const text = values[name];
  if (typeof text !== "string") return undefined;
  try {
    return parseDuration(text);
  } catch (error) {
    throw new UsageError(`--${name}: ${(error as Error).message}`);
  }
}

function ownNamespace(flag: unknown): string {
  if (typeof flag === "string" && flag) return flag;
  if (process.env.POD_NAMESPACE) return process.env.POD_NAMESPACE;
  try {
    return readFileSync(inClusterNamespaceFile, "utf8").trim();
  } catch {
    throw new UsageError(
      "--namespace is required outside a cluster (no POD_NAMESPACE, no service-account namespace file)",
    );
  }
}

export const controllerCommand: Command = {
  path: ["controller"],
  summary: "watch MCPPolicies, serve per-pod bundles, write policy status (leader only)",
  usage: `Usage: toolwall controller [--listen HOST:PORT] [--kubeconfig FILE] [--namespace NS]
                           [--lease-name NAME] [--identity NAME] [--poll-timeout 30s]
                           [--lease-duration 15s] [--resync 5m] [--tls-cert FILE --tls-key FILE]
                           [--redis URL]

Watches MCPPolicy objects in all namespaces and the pods they select. Serves
GET /v1/bundle?namespace=N&pod=P&since=HASH (long-poll; a projected service-account token with
audience toolwall, checked by TokenReview, may only fetch the bundle of the pod it is bound to),
/healthz, /readyz and /metrics. The replica holding the Lease writes each policy's status
(conditions Ready and Compiled, matchedPods, bundleHash). With --redis it also serves the audit
streams: GET /v1/events?namespace=N&... to a bearer token whose identity may list
mcppolicies.toolwall.io in N (checked by a SelfSubjectAccessReview made with that token).

  --listen HOST:PORT    address of the bundle/metrics server (default 0.0.0.0:8443)
  --kubeconfig FILE     kubeconfig to use (default: in-cluster service account)
  --namespace NS        the controller's own namespace, for the Lease (default POD_NAMESPACE or in-cluster)
  --lease-name NAME     Lease for leader election (default toolwall-controller)
  --identity NAME       this replica's name in the Lease (default POD_NAME or host-pid)
  --poll-timeout DUR    how long an unchanged long-poll waits before 304 (default 30s)
  --lease-duration DUR  a leader silent this long is replaced (default 15s)
  --resync DUR          relist MCPPolicies and pods this often (default 5m)
  --tls-cert FILE       serve HTTPS with this PEM certificate chain (with --tls-key); HTTP otherwise
  --redis URL           Redis of the audit streams (redis://, redis+sentinel://, redis+cluster://;
                        default TOOLWALL_REDIS_URL); no events API without it`,
  options: {
    listen: { type: "string" },
    kubeconfig: { type: "string" },
    namespace: { type: "string" },
    "lease-name": { type: "string" },
    identity: { type: "string" },
    "poll-timeout": { type: "string" },
    "lease-duration": { type: "string" },
    resync: { type: "string" },
    "tls-cert": { type: "string" },
    "tls-key": { type: "string" },
    redis: { type: "string" },
  },
  async run(values) {
    const { host, port } = listenFlag((values.listen as string | undefined) ?? "0.0.0.0:8443");
    const leaseDurationMs = durationFlag(values, "lease-duration");
    const pollTimeoutMs = durationFlag(values, "poll-timeout");
    const resyncMs = durationFlag(values, "resync");
    const certFile = values["tls-cert"] as string | undefined;
    const keyFile = values["tls-key"] as string | undefined;
    if (Boolean(certFile) !== Boolean(keyFile)) throw new UsageError("--tls-cert and --tls-key go together");
    const tls =
      certFile && keyFile
        ? { cert: readFileSync(certFile, "utf8"), key: readFileSync(keyFile, "utf8") }
        : undefined;
    const identity = (values.identity as string | undefined) ?? process.env.POD_NAME;
    const { Controller } = await import("../controller/controller.ts");
    const log = (message: string) =>
      process.stderr.write(`${new Date().toISOString()} controller: ${message}\n`);
    const controller = new Controller({
      kubeconfig: values.kubeconfig as string | undefined,
      host,
      port,
      namespace: ownNamespace(values.namespace),
      leaseName: (values["lease-name"] as string | undefined) ?? "toolwall-controller",
      ...(identity ? { identity } : {}),
      ...(leaseDurationMs !== undefined
        ? { leaseDurationMs, renewIntervalMs: Math.max(200, Math.floor(leaseDurationMs / 5)) }
        : {}),
      ...(pollTimeoutMs !== undefined ? { pollTimeoutMs } : {}),
      ...(resyncMs !== undefined ? { resyncMs } : {}),
      tls,
      redisUrl: (values.redis as string | undefined) || process.env.TOOLWALL_REDIS_URL || undefined,
      log,
    });
    const stopped = new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once("SIGTERM", stop);
      process.once("SIGINT", stop);
    });
    const started = controller.start().then((address) => log(`synced; serving on ${address}`));
    await Promise.race([started, stopped]);
    await stopped;
    log("stopping");
    await controller.stop();
    return 0;
  },
};
