import { type Command, requireString, UsageError } from "../cli/args.ts";

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
  --token-expiration S    lifetime of the sidecar's projected token in seconds (default 3600)`;

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
    "token-expiration": { type: "string", default: "3600" },
  },
  async run(values) {
    const { defaultInjectionConfig } = await import("./inject.ts");
    const { parseListenAddress, startWebhookServer } = await import("./server.ts");
    let address: { host: string; port: number };
    try {
      address = parseListenAddress(values.listen as string);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
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
    const server = await startWebhookServer({
      ...address,
      tlsCertFile: requireString(values, "tls-cert"),
      tlsKeyFile: requireString(values, "tls-key"),
      injection: {
        ...defaultInjectionConfig,
        image: (values.image as string | undefined) ?? defaultInjectionConfig.image,
        imagePullPolicy: pullPolicy,
        controllerUrl,
        tokenExpirationSeconds: expiration,
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
