import { type Command, stringList, UsageError } from "../cli/args.ts";

const USAGE = `Usage: toolwall sidecar [flags]

The in-pod proxy: a transparent listener receiving every outbound TCP connection of the pod
(redirected by 'toolwall init'), a per-pod CA whose certificate and merged trust bundle are written
for the app containers, and the policy pipeline for LLM and MCP traffic.

Flags:
  --controller-url URL the controller serving this pod's policy bundle (in a cluster)
  --token-file FILE    projected service-account token for the controller (audience toolwall)
  --bundle-dir DIR     where the last good bundle is kept across restarts
  --controller-ca FILE CA of the controller's certificate (default: system roots)
  --policy-file FILE   MCPPolicy YAML instead of a controller (repeatable; tests, hosts without Kubernetes)
  --listen ADDR        transparent listener (default [::]:15001; "off" for explicit mode only)
  --explicit ADDR      explicit proxy for HTTPS_PROXY/HTTP_PROXY clients, e.g. 127.0.0.1:15002 (default off)
  --admin ADDR         /healthz /readyz /metrics (default 127.0.0.1:15020; "off" to disable)
  --ca-dir DIR         where ca.crt and ca-bundle.pem are written (default /var/run/toolwall/ca)
  --extra-ca FILE      extra upstream root certificates, PEM (repeatable)
  --resolve NAME=IP    resolve NAME to IP[,IP…] like curl's --resolve (repeatable)
  --namespace NS       pod namespace (default $TOOLWALL_POD_NAMESPACE, $POD_NAMESPACE or "default")
  --pod NAME           pod name (default $TOOLWALL_POD_NAME, $POD_NAME or the host name)
  -h, --help           show this help`;

export const sidecarCommand: Command = {
  path: ["sidecar"],
  summary: "run the in-pod transparent proxy (native sidecar)",
  usage: USAGE,
  options: {
    "policy-file": { type: "string", multiple: true },
    "controller-url": { type: "string" },
    "token-file": { type: "string" },
    "bundle-dir": { type: "string" },
    "controller-ca": { type: "string" },
    listen: { type: "string" },
    explicit: { type: "string" },
    admin: { type: "string" },
    "ca-dir": { type: "string" },
    "extra-ca": { type: "string", multiple: true },
    resolve: { type: "string", multiple: true },
    namespace: { type: "string" },
    pod: { type: "string" },
  },
  async run(values) {
    const { defaultPodIdentity, parseHostPort, startSidecar } = await import("./sidecar.ts");
    const policyFiles = stringList(values, "policy-file");
    const controllerUrl = values["controller-url"] as string | undefined;
    if ((policyFiles.length === 0) === (controllerUrl === undefined)) {
      throw new UsageError(
        "give either --controller-url (with --token-file and --bundle-dir) or --policy-file",
      );
    }
    const controller = controllerUrl
      ? {
          url: controllerUrl,
          tokenFile: (values["token-file"] as string | undefined) ?? "/var/run/secrets/toolwall/token",
          bundleDir: (values["bundle-dir"] as string | undefined) ?? "/var/run/toolwall/state",
          caFile: values["controller-ca"] as string | undefined,
        }
      : undefined;
    const identity = defaultPodIdentity();
    let listen: { host: string; port: number } | undefined;
    let explicit: { host: string; port: number } | undefined;
    let admin: { host: string; port: number } | undefined;
    try {
      const listenText = (values.listen as string | undefined) ?? "[::]:15001";
      listen = listenText === "off" ? undefined : parseHostPort(listenText, "::");
      const explicitText = values.explicit as string | undefined;
      explicit =
        explicitText === undefined || explicitText === "off"
          ? undefined
          : parseHostPort(explicitText, "127.0.0.1");
      const adminText = (values.admin as string | undefined) ?? "127.0.0.1:15020";
      admin = adminText === "off" ? undefined : parseHostPort(adminText, "127.0.0.1");
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const sidecar = await startSidecar({
      policyFiles,
      controller,
      listen,
      explicit,
      admin,
      caDir: (values["ca-dir"] as string | undefined) ?? "/var/run/toolwall/ca",
      extraCaFiles: stringList(values, "extra-ca"),
      resolve: stringList(values, "resolve"),
      namespace: (values.namespace as string | undefined) ?? identity.namespace,
      pod: (values.pod as string | undefined) ?? identity.pod,
    });
    await new Promise<void>((resolve) => {
      process.once("SIGTERM", resolve);
      process.once("SIGINT", resolve);
    });
    await sidecar.close();
    return 0;
  },
};
