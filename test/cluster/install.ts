/**
 * `helm install charts/toolwall` as the node scenarios and `make cluster` do it: the locally built
 * image with pullPolicy Never, the bundled Redis, one replica of each component.
 */
import { join } from "node:path";
import { type CommandResult, helm } from "../k8s/cluster.ts";
import type { ControlPlaneInfo } from "../k8s/global-setup.ts";
import { repoRoot } from "./images.ts";

export const RELEASE = "toolwall";
export const RELEASE_NAMESPACE = "toolwall-system";

export function installToolwall(
  plane: ControlPlaneInfo,
  images: { toolwall: string; redis: string },
): Promise<CommandResult> {
  const split = images.toolwall.lastIndexOf(":");
  return helm(plane, [
    "upgrade",
    "--install",
    RELEASE,
    join(repoRoot, "charts", "toolwall"),
    "-n",
    RELEASE_NAMESPACE,
    "--create-namespace",
    `--set=image.repository=${images.toolwall.slice(0, split)}`,
    `--set=image.tag=${images.toolwall.slice(split + 1)}`,
    "--set=image.pullPolicy=Never",
    "--set=redis.bundled.enabled=true",
    `--set=redis.bundled.image=${images.redis}`,
    "--set=controller.replicas=1",
    "--set=webhook.replicas=1",
    "--set=controller.podDisruptionBudget.minAvailable=0",
    "--set=webhook.podDisruptionBudget.minAvailable=0",
    "--wait",
    "--timeout=5m",
  ]);
}
