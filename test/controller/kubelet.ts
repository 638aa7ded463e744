/**
 * The little of a kubelet the closed-loop test needs: a container's environment resolved from the
 * stored pod (values and fieldRefs), and its volume mounts mapped to host directories by rewriting
 * paths in args and env (no mount namespace needed).
 */
import type { V1Container, V1Pod } from "@kubernetes/client-node";

export function containerEnv(container: V1Container, pod: V1Pod): Record<string, string> {
  const env: Record<string, string> = {};
  for (const variable of container.env ?? []) {
    if (variable.value !== undefined) {
      env[variable.name] = variable.value;
      continue;
    }
    const fieldPath = variable.valueFrom?.fieldRef?.fieldPath;
    const fields: Record<string, string | undefined> = {
      "metadata.name": pod.metadata?.name,
      "metadata.namespace": pod.metadata?.namespace,
      "metadata.uid": pod.metadata?.uid,
      "spec.serviceAccountName": pod.spec?.serviceAccountName,
    };
    if (!fieldPath || fields[fieldPath] === undefined) {
      throw new Error(`env ${variable.name}: unsupported source ${JSON.stringify(variable.valueFrom)}`);
    }
    env[variable.name] = fields[fieldPath]!;
  }
  return env;
}

/** Rewrites every path under a container's mount paths to the host directory backing that volume. */
export function pathMapper(
  container: V1Container,
  hostDirOf: (volume: string) => string,
): (text: string) => string {
  const mounts = (container.volumeMounts ?? [])
    .map((mount) => ({ from: mount.mountPath, to: hostDirOf(mount.name) }))
    .sort((x, y) => y.from.length - x.from.length);
  return (text) => {
    for (const { from, to } of mounts) {
      if (text === from || text.startsWith(`${from}/`)) return to + text.slice(from.length);
    }
    return text;
  };
}
