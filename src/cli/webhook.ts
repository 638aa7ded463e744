import { addressFlag, type Command, requireString, UsageError } from "./args.ts";

const usage = `Usage: toolwall webhook --tls-cert FILE --tls-key FILE [flags]

Serves the mutating admission webhook (POST /mutate, AdmissionReview v1) over TLS: injects the
toolwall init container and sidecar into agent pods and refuses pods that could bypass them.

Flags:
  --listen ADDR           address to serve on (default [::]:8443)
  --tls-cert FILE         serving certificate (PEM); re-read when it changes
  --tls-key FILE          its private key (PEM)
  --image IMAGE           image of the injected init container and sidecar
  --image-pull-policy P   Always | IfNotPresent | Never (default IfNotPresent)
  --controller-url URL    where sidecars fetch their policy bundle
  --redis-url URL         shared state for the sidecars (their TOOLWALL_REDIS_URL); default in memory
  --token-expiration S    lifetime of the sidecar's projected token in seconds (default 3600)
  --sidecar-resources J   the sidecar's resources as JSON, e.g. '{"requests":{"memory":"256Mi"},"limits":{"memory":"768Mi"}}'
                          (pods override them with toolwall.io/sidecar-{cpu,memory}[-limit] annotations)
  --init-resources J      the init container's resources as JSON`;

export const webhookCommand: Command = {
  path: ["webhook"],
  summary: "mutating admission webhook that injects the sidecar",
  usage,
  options: {
    listen: { type: "string", default: "[::]:8443" },
    "tls-cert": { type: "string" },
    "tls-key": { type: "string" },
    image: { type: "string" },
    "image-pull-policy": { type: "string", default: "IfNotPresent" },
    "controller-url": { type: "string" },
    "redis-url": { type: "string", default: "" },
    "token-expiration": { type: "string", default: "3600" },
    "sidecar-resources": { type: "string" },
    "init-resources": { type: "string" },
  },
  async run(values) {
    const { defaultInjectionConfig, parseResources } = await import("../webhook/inject.ts");
    const { startWebhookServer } = await import("../webhook/server.ts");
    const address = addressFlag("listen", values.listen as string, "::");
    const pullPolicy = values["image-pull-policy"] as string;
    if (!["Always", "IfNotPresent", "Never"].includes(pullPolicy)) {
      throw new UsageError(`--image-pull-policy must be Always, IfNotPresent or Never, got '${pullPolicy}'`);
    }
    const expiration = Number(values["token-expiration"]);
    if (!Number.isInteger(expiration) || expiration < 600) {
      throw new UsageError("--token-expiration must be a whole number of seconds, at least 600");
    }
    const controllerUrl =
      (values["controller-url"] as string | undefined) ?? defaultInjectionConfig.controllerUrl;
    if (!URL.canParse(controllerUrl))
      throw new UsageError(`--controller-url '${controllerUrl}' is not a URL`);
    const redisUrl = values["redis-url"] as string;
    if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) {
      throw new UsageError(`--redis-url must start with redis:// or rediss://, got '${redisUrl}'`);
    }
    let sidecarResources = defaultInjectionConfig.sidecarResources;
    let initResources = defaultInjectionConfig.initResources;
    try {
      if (typeof values["sidecar-resources"] === "string")
        sidecarResources = parseResources(values["sidecar-resources"], "--sidecar-resources");
      if (typeof values["init-resources"] === "string")
        initResources = parseResources(values["init-resources"], "--init-resources");
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const server = await startWebhookServer({
      ...address,
      tlsCertFile: requireString(values, "tls-cert"),
      tlsKeyFile: requireString(values, "tls-key"),
      injection: {
        ...defaultInjectionConfig,
        image: (values.image as string | undefined) ?? defaultInjectionConfig.image,
        imagePullPolicy: pullPolicy,
        controllerUrl,
        redisUrl,
        tokenExpirationSeconds: expiration,
        sidecarResources,
        initResources,
      },
    });
    process.stdout.write(`${JSON.stringify({ msg: "webhook listening", url: server.url })}\n`);
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once("SIGTERM", stop);
      process.once("SIGINT", stop);
    });
    await server.close();
    return 0;
  },
};

const certsUsage = `Usage: toolwall webhook certs --webhook-configuration NAME --service NAME [flags]

Issues and rotates the webhook's serving certificate: a CA in --ca-secret (read by this process
only), the serving pair in --secret (mounted by the webhook), and the caBundle of every webhook in
the MutatingWebhookConfiguration kept in sync. Runs until stopped; one pass every --interval.

Flags:
  --namespace NS                the release namespace (default POD_NAMESPACE)
  --service NAME                the webhook's Service (the certificate's DNS names)
  --secret NAME                 Secret for tls.crt/tls.key/ca.crt (default <service>-tls)
  --ca-secret NAME              Secret for the CA (default <service>-ca)
  --webhook-configuration NAME  the MutatingWebhookConfiguration to keep in sync
  --kubeconfig FILE             kubeconfig (default: in-cluster service account)
  --interval SECONDS            seconds between passes (default 60)`;

export const webhookCertsCommand: Command = {
  path: ["webhook", "certs"],
  summary: "issue and rotate the webhook's serving certificate, keep caBundle in sync",
  usage: certsUsage,
  options: {
    namespace: { type: "string" },
    service: { type: "string" },
    secret: { type: "string" },
    "ca-secret": { type: "string" },
    "webhook-configuration": { type: "string" },
    kubeconfig: { type: "string" },
    interval: { type: "string", default: "60" },
  },
  async run(values) {
    const service = requireString(values, "service");
    const namespace = (values.namespace as string | undefined) ?? process.env.POD_NAMESPACE;
    if (!namespace) throw new UsageError("--namespace is required (or POD_NAMESPACE)");
    const interval = Number(values.interval);
    if (!Number.isFinite(interval) || interval < 1)
      throw new UsageError("--interval must be at least 1 second");
    const { AdmissionregistrationV1Api, CoreV1Api, KubeConfig } = await import("@kubernetes/client-node");
    const { defaultCertificateTimings, runWebhookCertificateRotation, serviceDnsNames } = await import(
      "../webhook/certs.ts"
    );
    const config = new KubeConfig();
    const kubeconfig = values.kubeconfig as string | undefined;
    if (kubeconfig) config.loadFromFile(kubeconfig);
    else config.loadFromCluster();
    const abort = new AbortController();
    process.once("SIGTERM", () => abort.abort());
    process.once("SIGINT", () => abort.abort());
    await runWebhookCertificateRotation(
      { core: config.makeApiClient(CoreV1Api), admission: config.makeApiClient(AdmissionregistrationV1Api) },
      {
        namespace,
        servingSecret: (values.secret as string | undefined) ?? `${service}-tls`,
        caSecret: (values["ca-secret"] as string | undefined) ?? `${service}-ca`,
        webhookConfiguration: requireString(values, "webhook-configuration"),
        dnsNames: serviceDnsNames(service, namespace),
        ...defaultCertificateTimings,
      },
      abort.signal,
      interval * 1000,
    );
    return 0;
  },
};
