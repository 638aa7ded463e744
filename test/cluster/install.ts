/**
 * `helm install charts/toolwall` as the node scenarios and `make cluster` do it: the locally built
 * image with pullPolicy Never, the bundled Redis, one replica of each component.
 */
import { join } from "node:path";
import { type CommandResult, helm, kubectl } from "../k8s/cluster.ts";
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

/**
 * What the node says when an install does not become ready: helm's "context deadline exceeded" names
 * no cause. The pods, the recent events (image not found, no space left, a crash) and the node's
 * conditions (disk or memory pressure) do.
 */
export async function clusterState(plane: ControlPlaneInfo): Promise<string> {
  const sections: [string, string[]][] = [
    ["pods", ["get", "pods", "-A", "-o", "wide"]],
    ["events, latest last", ["get", "events", "-A", "--sort-by=.lastTimestamp"]],
    [
      "node conditions",
      [
        "get",
        "nodes",
        "-o",
        "jsonpath={range .items[*].status.conditions[*]}{.type}={.status} {.message}{'\\n'}{end}",
      ],
    ],
  ];
  const parts: string[] = [];
  for (const [title, args] of sections) {
    const result = await kubectl(plane, args);
    const text = (result.code === 0 ? result.stdout : result.stderr)
      .trimEnd()
      .split("\n")
      .slice(-40)
      .join("\n");
    parts.push(`--- ${title}\n${text}`);
  }
  return parts.join("\n");
}
