import { readFile } from "node:fs/promises";
import { type OptionSpec, UsageError } from "../cli/args.ts";
import { PolicySet } from "../policy/evaluate.ts";
import type { AuditSink } from "../telemetry/audit.ts";
import type { PolicySource } from "./source.ts";

/** Flags `toolwall sidecar` takes for its policy source (spread into its Command options). */
export const policySourceOptions: OptionSpec = {
  "controller-url": { type: "string" },
  "controller-ca": { type: "string" },
  "token-file": { type: "string" },
  "bundle-dir": { type: "string" },
  "policy-file": { type: "string", multiple: true },
};

export const policySourceUsage = `  --controller-url URL  long-poll the controller for this pod's bundle (with --token-file, --bundle-dir)
  --controller-ca FILE  PEM CA of the controller's HTTPS certificate (default: system roots)
  --token-file FILE     projected service-account token, audience toolwall
  --bundle-dir DIR      where the last good bundle is kept across sidecar restarts
  --policy-file FILE    policies from YAML files instead of a controller (hosts without Kubernetes)`;

export interface OpenedPolicySource extends PolicySource {
  /** The sidecar is ready (readyz) only once this is true. */
  ready(): boolean;
  whenReady(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The policy source the sidecar's flags ask for: a BundleClient for `--controller-url` (pod name and
 * namespace from TOOLWALL_POD_NAME / TOOLWALL_POD_NAMESPACE, set by the webhook), or the fixed
 * policies of `--policy-file` that select this pod.
 */
export async function openPolicySource(
  values: Record<string, unknown>,
  context: {
    audit: AuditSink;
    log?: (message: string) => void;
    env?: NodeJS.ProcessEnv;
    labels?: Readonly<Record<string, string>>;
  },
): Promise<OpenedPolicySource> {
  const env = context.env ?? process.env;
  const controllerUrl = values["controller-url"] as string | undefined;
  const policyFiles = (values["policy-file"] as string[] | undefined) ?? [];
  if (controllerUrl && policyFiles.length > 0) {
    throw new UsageError("--controller-url and --policy-file exclude each other");
  }
  if (!controllerUrl) {
    if (policyFiles.length === 0) throw new UsageError("--controller-url or --policy-file is required");
    const { loadPolicyFiles } = await import("../policy/load.ts");
    const all = PolicySet.fromDocuments(loadPolicyFiles(policyFiles));
    const namespace = env.TOOLWALL_POD_NAMESPACE;
    const set = namespace ? all.forPod(namespace, context.labels ?? {}) : all;
    return {
      current: () => set,
      expired: () => false,
      ready: () => true,
      whenReady: async () => undefined,
      stop: async () => undefined,
    };
  }
  const tokenFile = values["token-file"] as string | undefined;
  const bundleDir = values["bundle-dir"] as string | undefined;
  if (!tokenFile || !bundleDir) throw new UsageError("--controller-url needs --token-file and --bundle-dir");
  const namespace = env.TOOLWALL_POD_NAMESPACE;
  const pod = env.TOOLWALL_POD_NAME;
  if (!namespace || !pod) {
    throw new UsageError("TOOLWALL_POD_NAMESPACE and TOOLWALL_POD_NAME must be set (the webhook sets them)");
  }
  const caFile = values["controller-ca"] as string | undefined;
  const controllerCa = caFile ? await readFile(caFile, "utf8") : undefined;
  const { BundleClient } = await import("./client.ts");
  const client = new BundleClient({
    controllerUrl,
    namespace,
    pod,
    tokenFile,
    bundleDir,
    audit: context.audit,
    controllerCa,
    ...(context.log ? { log: context.log } : {}),
  });
  await client.start();
  return client;
}
