/**
 * The two ways the scenarios get a cluster with real pods: the one-node cluster of test/cluster/node.ts
 * (containerd + kubelet on this machine, images built with buildah; the default), or any cluster a
 * kubeconfig names (TOOLWALL_E2E_KUBECONFIG, e.g. kind from `make e2e`, with the images loaded).
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { images } from "../cluster/images.ts";
import { type NodeCluster, startNode } from "../cluster/node.ts";
import { ensureBinaries } from "../k8s/binaries.ts";
import { describeUnlessMissing } from "../k8s/cluster.ts";
import type { ControlPlaneInfo } from "../k8s/global-setup.ts";

export interface ScenarioCluster {
  /** What kubectl() and helm() of test/k8s/cluster.ts take. */
  plane: ControlPlaneInfo;
  /** The node harness, when the cluster is ours (resource figures come from its cgroups). */
  node?: NodeCluster;
  images: { toolwall: string; peers: string; redis: string };
  stop(): Promise<void>;
}

const externalKubeconfig = process.env.TOOLWALL_E2E_KUBECONFIG;

function commandMissing(command: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" });
    return false;
  } catch {
    return true;
  }
}

/** Why no cluster can be had here, or undefined. */
export function clusterProblem(): string | undefined {
  if (externalKubeconfig) {
    return existsSync(externalKubeconfig)
      ? undefined
      : `TOOLWALL_E2E_KUBECONFIG ${externalKubeconfig} does not exist`;
  }
  if (process.getuid?.() !== 0)
    return "the one-node cluster needs root (network namespaces, mounts, cgroups)";
  const missing = ["containerd", "runc", "buildah", "mmdebstrap", "nsenter", "go"].filter(commandMissing);
  if (!existsSync("/usr/lib/cni/bridge")) missing.push("containernetworking-plugins");
  if (missing.length > 0) return `missing ${missing.join(", ")} (make prereqs installs them)`;
  return undefined;
}

/** Like describeWithControlPlane: skips with the reason outside CI, fails in CI (CI=true). */
export function describeWithCluster(title: string, body: () => void): void {
  describeUnlessMissing(clusterProblem(), title, body);
}

export async function scenarioCluster(): Promise<ScenarioCluster> {
  const problem = clusterProblem();
  if (problem) throw new Error(problem);
  if (externalKubeconfig) {
    const binaries = await ensureBinaries();
    return {
      plane: {
        server: "",
        kubeconfigPath: externalKubeconfig,
        caPem: "",
        binaries,
        buildSeconds: 0,
        startSeconds: 0,
      },
      images: {
        toolwall: process.env.TOOLWALL_E2E_IMAGE ?? images.toolwall,
        peers: process.env.TOOLWALL_E2E_PEERS_IMAGE ?? images.peers,
        redis: process.env.TOOLWALL_E2E_REDIS_IMAGE ?? "redis:7.4-alpine",
      },
      stop: async () => undefined,
    };
  }
  const node = await startNode();
  return {
    plane: {
      server: node.server,
      kubeconfigPath: node.kubeconfigPath,
      caPem: "",
      binaries: node.binaries,
      buildSeconds: node.timings.binaries + node.timings.images,
      startSeconds: node.timings.import + node.timings.start,
    },
    node,
    images: { toolwall: images.toolwall, peers: images.peers, redis: images.redis },
    stop: () => node.stop(),
  };
}
