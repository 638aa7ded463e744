/**
 * What a Kubernetes test file uses: the shared control plane (see global-setup.ts), kubectl against
 * it, an API client, and the rule for a missing prerequisite (fail with CI=true, skip elsewhere).
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { describe, inject } from "vitest";
import { binaryPaths } from "./binaries.ts";
import type { ControlPlaneInfo } from "./global-setup.ts";

/** A cold build of the binaries takes many minutes; warm starts take seconds. */
export const CONTROL_PLANE_TIMEOUT_MS = 90 * 60_000;

function goAvailable(): boolean {
  try {
    execFileSync("go", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Why the control plane cannot be had on this machine, or undefined when it can. */
export function controlPlaneProblem(): string | undefined {
  const binaries = Object.values(binaryPaths());
  if (binaries.every((path) => existsSync(path)) || goAvailable()) return undefined;
  return "Go is missing and the Kubernetes binaries are not cached: cannot build kube-apiserver and etcd";
}

/**
 * describe() for suites that need the control plane. Outside CI a missing prerequisite skips the
 * suite with the reason; with CI=true the suite runs and fails on it.
 */
export function describeWithControlPlane(title: string, body: () => void): void {
  describeUnlessMissing(controlPlaneProblem(), title, body);
}

/** describe(), or outside CI describe.skip() naming the missing prerequisite (CI=true runs and fails). */
export function describeUnlessMissing(problem: string | undefined, title: string, body: () => void): void {
  if (problem && process.env.CI !== "true") {
    describe.skip(`${title} (skipped: ${problem})`, body);
    return;
  }
  describe(title, body);
}

let shared: Promise<ControlPlaneInfo> | undefined;

/** The control plane shared by all test files of this run; started on first use. */
export function controlPlane(): Promise<ControlPlaneInfo> {
  shared ??= (async () => {
    const problem = controlPlaneProblem();
    if (problem) throw new Error(problem);
    const endpoint = inject("controlPlaneEndpoint");
    if (!endpoint) throw new Error("test/k8s/global-setup.ts is not in vitest's globalSetup");
    for (;;) {
      const state = (await (await fetch(`${endpoint}/control-plane`)).json()) as
        | { state: "starting" }
        | { state: "ready"; info: ControlPlaneInfo }
        | { state: "failed"; error: string };
      if (state.state === "ready") return state.info;
      if (state.state === "failed") throw new Error(`control plane failed to start: ${state.error}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  })();
  return shared;
}

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

function runBinary(
  binary: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  input?: string,
): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = execFile(binary, args, { env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
    if (input !== undefined) child.stdin!.end(input);
  });
}

export function kubectl(plane: ControlPlaneInfo, args: string[], input?: string): Promise<CommandResult> {
  return runBinary(
    plane.binaries.kubectl,
    ["--kubeconfig", plane.kubeconfigPath, ...args],
    process.env,
    input,
  );
}

export function helm(plane: ControlPlaneInfo, args: string[]): Promise<CommandResult> {
  return runBinary(plane.binaries.helm, args, {
    ...process.env,
    KUBECONFIG: plane.kubeconfigPath,
    HELM_CACHE_HOME: join(dirname(plane.kubeconfigPath), "helm", "cache"),
    HELM_CONFIG_HOME: join(dirname(plane.kubeconfigPath), "helm", "config"),
    HELM_DATA_HOME: join(dirname(plane.kubeconfigPath), "helm", "data"),
  });
}

export function kubeConfig(plane: ControlPlaneInfo): KubeConfig {
  const config = new KubeConfig();
  config.loadFromFile(plane.kubeconfigPath);
  return config;
}
