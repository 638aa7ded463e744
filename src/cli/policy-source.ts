import { readFile } from "node:fs/promises";
import type { OpenedPolicySource } from "../bundle/source.ts";
import type { AuditSink } from "../telemetry/audit.ts";
import { type OptionSpec, UsageError } from "./args.ts";

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

/**
 * The policy source the sidecar's flags ask for: a BundleClient for `--controller-url`, or every
 * policy of the `--policy-file`s (the local stand-in for a bundle).
 */
export async function openPolicySource(
  values: Record<string, unknown>,
  context: { audit: AuditSink; namespace: string; pod: string; log?: (message: string) => void },
): Promise<OpenedPolicySource> {
  const controllerUrl = values["controller-url"] as string | undefined;
  const policyFiles = (values["policy-file"] as string[] | undefined) ?? [];
  if (controllerUrl && policyFiles.length > 0) {
    throw new UsageError("--controller-url and --policy-file exclude each other");
  }
  if (!controllerUrl) {
    if (policyFiles.length === 0) {
      throw new UsageError(
        "give --controller-url or --policy-file (a controller also needs --token-file and --bundle-dir)",
      );
    }
    const { loadPolicyFiles } = await import("../policy/load.ts");
    const { PolicySet } = await import("../policy/evaluate.ts");
    const set = PolicySet.fromDocuments(loadPolicyFiles(policyFiles));
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
  const { namespace, pod } = context;
  const caFile = values["controller-ca"] as string | undefined;
  const controllerCa = caFile ? await readFile(caFile, "utf8") : undefined;
  const { BundleClient } = await import("../bundle/client.ts");
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
