import { createServer } from "node:net";

/** The chart's default release namespace; TOOLWALL_NAMESPACE names another. */
const defaultNamespace = "toolwall-system";

export interface ForwardedServer {
  server: string;
  token: string;
  close(): void;
}

/**
 * Without --server: the controller's audit API through the kubeconfig (KUBECONFIG or ~/.kube/config,
 * like kubectl), as `kubectl port-forward` would reach it — a local port forwarded to a ready
 * controller pod through the API server — with the kubeconfig user's own bearer token, which the
 * controller checks against the API server (list mcppolicies in the namespace asked for).
 */
export async function controllerThroughKubeconfig(): Promise<ForwardedServer> {
  const { CoreV1Api, KubeConfig, PortForward } = await import("@kubernetes/client-node");
  const config = new KubeConfig();
  config.loadFromDefault();
  // The user's token, static or from an exec/auth-provider plugin, as client-node sends it.
  const options: { headers?: Record<string, string | string[] | number | undefined> } = {};
  await config.applyToHTTPSOptions(options);
  const authorization = String(options.headers?.Authorization ?? options.headers?.authorization ?? "");
  const token = /^Bearer (.+)$/i.exec(authorization)?.[1];
  if (!token) {
    throw new Error(
      `kubeconfig user '${config.getCurrentUser()?.name ?? "?"}' has no bearer token (a client certificate cannot be passed on): the audit API authorises by token; use --token or a token/exec user`,
    );
  }
  const namespace = process.env.TOOLWALL_NAMESPACE ?? defaultNamespace;
  const pods = await config
    .makeApiClient(CoreV1Api)
    .listNamespacedPod({
      namespace,
      labelSelector: "app.kubernetes.io/name=toolwall,app.kubernetes.io/component=controller",
    })
    .catch((error: { code?: number }) => {
      throw new Error(
        `cannot find the Toolwall controller: listing pods in namespace ${namespace} answered ${error.code ?? "an error"} (a port-forward to it takes get/list pods and create pods/portforward there)`,
      );
    });
  const pod = pods.items.find((p) =>
    p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
  );
  if (!pod?.metadata?.name) {
    throw new Error(
      `no ready Toolwall controller pod in namespace ${namespace} (set TOOLWALL_NAMESPACE or --server)`,
    );
  }
  const port =
    pod.spec?.containers.flatMap((c) => c.ports ?? []).find((p) => p.name === "http")?.containerPort ?? 8443;
  const forward = new PortForward(config);
  const podName = pod.metadata.name;
  // Closed with the listener: an open forward (a websocket to the API server) keeps the process alive.
  const open = new Set<{ destroy(): void }>();
  const listener = createServer((socket) => {
    open.add(socket);
    forward.portForward(namespace, podName, [port], socket, null, socket).then(
      (ws) => {
        const socketOf = typeof ws === "function" ? ws() : ws;
        if (socketOf) open.add({ destroy: () => socketOf.close() });
      },
      () => socket.destroy(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    listener.once("error", reject);
    listener.listen(0, "127.0.0.1", resolve);
  });
  listener.unref();
  const address = listener.address() as { port: number };
  return {
    server: `http://127.0.0.1:${address.port}`,
    token,
    close: () => {
      listener.close();
      for (const connection of open) connection.destroy();
    },
  };
}
