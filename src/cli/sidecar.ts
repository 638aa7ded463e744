import { llmLimitUsage, parseLlmLimits } from "../codecs/framing.ts";
import { ADMIN_PORT, PROXY_PORT } from "../kernel/mesh.ts";
import { addressFlag, type Command, stringList, UsageError } from "./args.ts";
import { policySourceOptions, policySourceUsage } from "./policy-source.ts";

const USAGE = `Usage: toolwall sidecar [flags]

The in-pod proxy: a transparent listener receiving every outbound TCP connection of the pod
(redirected by 'toolwall init'), a per-pod CA whose certificate and merged trust bundle are written
for the app containers, and the policy pipeline for LLM and MCP traffic.

Flags:
${policySourceUsage}
  --listen ADDR        transparent listener (default [::]:${PROXY_PORT}; "off" for explicit mode only)
  --explicit ADDR      explicit proxy for HTTPS_PROXY/HTTP_PROXY clients, e.g. 127.0.0.1:15002 (default off)
  --redis URL          shared state (rate limits, cross-server windows, pins); default $TOOLWALL_REDIS_URL, else memory
  --admin ADDR         /healthz /readyz /metrics (default 127.0.0.1:${ADMIN_PORT}; "off" to disable)
  --ca-dir DIR         where ca.crt and ca-bundle.pem are written (default /var/run/toolwall/ca)
  --extra-ca FILE      extra upstream root certificates, PEM (repeatable)
  --resolve NAME=IP    resolve NAME to IP[,IP…] like curl's --resolve (repeatable)
  --namespace NS       pod namespace (default $TOOLWALL_POD_NAMESPACE, $POD_NAMESPACE or "default")
  --pod NAME           pod name (default $TOOLWALL_POD_NAME, $POD_NAME or the host name)
${llmLimitUsage.replace(/^/gm, "  ")}
  -h, --help           show this help`;

export const sidecarCommand: Command = {
  path: ["sidecar"],
  summary: "run the in-pod transparent proxy (native sidecar)",
  usage: USAGE,
  options: {
    ...policySourceOptions,
    listen: { type: "string" },
    explicit: { type: "string" },
    redis: { type: "string" },
    admin: { type: "string" },
    "ca-dir": { type: "string" },
    "extra-ca": { type: "string", multiple: true },
    resolve: { type: "string", multiple: true },
    namespace: { type: "string" },
    pod: { type: "string" },
    "llm-limit": { type: "string", multiple: true },
  },
  async run(values) {
    const { defaultPodIdentity, startSidecar } = await import("../runtime/sidecar.ts");
    const { openPolicySource } = await import("./policy-source.ts");
    const identity = defaultPodIdentity();
    const listenText = (values.listen as string | undefined) ?? `[::]:${PROXY_PORT}`;
    const listen = listenText === "off" ? undefined : addressFlag("listen", listenText, "::");
    const explicitText = values.explicit as string | undefined;
    const explicit =
      explicitText === undefined || explicitText === "off"
        ? undefined
        : addressFlag("explicit", explicitText, "127.0.0.1");
    const adminText = (values.admin as string | undefined) ?? `127.0.0.1:${ADMIN_PORT}`;
    const admin = adminText === "off" ? undefined : addressFlag("admin", adminText, "127.0.0.1");
    let llm: ReturnType<typeof parseLlmLimits>;
    try {
      llm = parseLlmLimits(stringList(values, "llm-limit"));
    } catch (error) {
      throw new UsageError(`--llm-limit: ${(error as Error).message}`);
    }
    const namespace = (values.namespace as string | undefined) ?? identity.namespace;
    const pod = (values.pod as string | undefined) ?? identity.pod;
    const log = (line: string) => process.stderr.write(`${line}\n`);
    let sidecar: Awaited<ReturnType<typeof startSidecar>>;
    try {
      sidecar = await startSidecar({
        policySource: (audit) => openPolicySource(values, { audit, namespace, pod, log }),
        listen,
        explicit,
        redisUrl: (values.redis as string | undefined) ?? process.env.TOOLWALL_REDIS_URL,
        admin,
        caDir: (values["ca-dir"] as string | undefined) ?? "/var/run/toolwall/ca",
        extraCaFiles: stringList(values, "extra-ca"),
        resolve: stringList(values, "resolve"),
        namespace,
        pod,
        llm,
      });
    } catch (error) {
      if (error instanceof UsageError) throw error;
      log(`toolwall sidecar: ${(error as Error).message}`);
      setTimeout(() => process.exit(1), 1000).unref();
      return 1;
    }
    await new Promise<void>((resolve) => {
      process.once("SIGTERM", resolve);
      process.once("SIGINT", resolve);
    });
    // Kubernetes kills the pod 30 s after SIGTERM: whatever close still waits on after 28 s
    // (an upstream stream, the state store) must not make the kill the way out.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      sidecar.close(),
      new Promise((resolve) => {
        timer = setTimeout(resolve, 28_000);
      }),
    ]);
    clearTimeout(timer);
    setTimeout(() => process.exit(), 1000).unref();
    return 0;
  },
};
