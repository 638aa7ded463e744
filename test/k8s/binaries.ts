/**
 * Builds the Kubernetes binaries the tests run (the control plane, the node's kubelet and kube-proxy,
 * etcd, kubectl, helm, CoreDNS and the sandbox's pause) from their Go modules into a versioned cache
 * outside the work tree, so every clone on the machine reuses them.
 *
 * Run directly (`node test/k8s/binaries.ts`) to warm the cache; the test global setup calls
 * `ensureBinaries()` which builds only what is missing.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, open, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";

export const KUBERNETES_VERSION = "1.37.1";
/** The etcd server release k8s.io/kubernetes v1.37.1 itself requires. */
export const ETCD_VERSION = "3.7.0";
export const HELM_VERSION = "4.3.1";
export const COREDNS_VERSION = "1.15.0";

export interface KubeBinaries {
  kubeApiserver: string;
  etcd: string;
  kubectl: string;
  helm: string;
  kubelet: string;
  kubeProxy: string;
  kubeControllerManager: string;
  kubeScheduler: string;
  coredns: string;
  /** The pod sandbox's process: sleeps until signalled (see PAUSE_SOURCE). */
  pause: string;
}

export function cacheRoot(): string {
  return process.env.TOOLWALL_CACHE_DIR ?? join(homedir(), ".cache", "toolwall");
}

export function binariesDir(): string {
  return join(cacheRoot(), "k8s", `v${KUBERNETES_VERSION}`);
}

export function binaryPaths(dir = binariesDir()): KubeBinaries {
  return {
    kubeApiserver: join(dir, "bin", "kube-apiserver"),
    etcd: join(dir, "bin", "etcd"),
    kubectl: join(dir, "bin", "kubectl"),
    helm: join(dir, "bin", "helm"),
    kubelet: join(dir, "bin", "kubelet"),
    kubeProxy: join(dir, "bin", "kube-proxy"),
    kubeControllerManager: join(dir, "bin", "kube-controller-manager"),
    kubeScheduler: join(dir, "bin", "kube-scheduler"),
    coredns: join(dir, "bin", "coredns"),
    pause: join(dir, "bin", "pause"),
  };
}

type Log = (line: string) => void;

interface GoTarget {
  /** Folder under src/ holding the wrapper module. */
  module: string;
  requires: Record<string, string>;
  replaces?: Record<string, string>;
  packages: Record<string, string>;
  ldflags: string[];
  /** Source files of the wrapper module itself (a module with its own main package). */
  files?: Record<string, string>;
}

/**
 * The CRI sandbox image's process. No registry is reachable, so the pause image is built here: PID 1
 * of the sandbox waits for SIGTERM/SIGINT and exits, like Kubernetes' C pause.
 */
const PAUSE_SOURCE = `package main

import (
\t"os"
\t"os/signal"
\t"syscall"
)

func main() {
\tsignals := make(chan os.Signal, 1)
\tsignal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
\t<-signals
}
`;

/** Each wrapper module, the version stamp that says its binaries are current, and its binaries. */
const modules: Record<string, { stamp: string; binaries: string[] }> = {
  kubernetes: {
    stamp: `k8s.io/kubernetes@v${KUBERNETES_VERSION}`,
    binaries: [
      "kube-apiserver",
      "kubectl",
      "kubelet",
      "kube-proxy",
      "kube-controller-manager",
      "kube-scheduler",
    ],
  },
  etcd: { stamp: `go.etcd.io/etcd/server/v3@v${ETCD_VERSION}`, binaries: ["etcd"] },
  helm: { stamp: `helm.sh/helm/v4@v${HELM_VERSION}`, binaries: ["helm"] },
  coredns: { stamp: `github.com/coredns/coredns@v${COREDNS_VERSION}`, binaries: ["coredns"] },
  pause: { stamp: `pause@${createHash("sha256").update(PAUSE_SOURCE).digest("hex")}`, binaries: ["pause"] },
};

export async function run(
  cmd: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; onStderrLine?: (line: string) => void },
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: options.cwd,
      env: { ...process.env, GOFLAGS: "-mod=mod -buildvcs=false", ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderrTail = "";
    let partial = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      const text = partial + chunk.toString();
      const lines = text.split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        stderrTail = (stderrTail + line + "\n").slice(-8000);
        options.onStderrLine?.(line);
      }
    });
    child.on("error", reject);
    child.on("close", (code) => {
      stderrTail += partial;
      if (code === 0) resolve(stdout);
      else reject(new Error(`${cmd} ${args.join(" ")} exited with ${code}:\n${stderrTail}`));
    });
  });
}

/** The k8s.io/<staging> modules k8s.io/kubernetes requires, pinned to the matching v0.x release. */
async function stagingReplaces(workDir: string): Promise<Record<string, string>> {
  const info = JSON.parse(
    await run("go", ["mod", "download", "-json", `k8s.io/kubernetes@v${KUBERNETES_VERSION}`], {
      cwd: workDir,
    }),
  ) as { GoMod: string };
  const goMod = await readFile(info.GoMod, "utf8");
  const staging = [...goMod.matchAll(/^\s*(k8s\.io\/[\w.-]+) => \.\/staging\//gm)].map((m) => m[1]!);
  const required = new Set([...goMod.matchAll(/^\s*(k8s\.io\/[\w.-]+) v0\.0\.0\s*$/gm)].map((m) => m[1]!));
  const stagingVersion = `v0.${KUBERNETES_VERSION.split(".").slice(1).join(".")}`;
  return Object.fromEntries(
    staging.filter((name) => required.has(name)).map((name) => [name, `${name} ${stagingVersion}`]),
  );
}

function goModFile(target: GoTarget): string {
  const requires = Object.entries(target.requires).map(([m, v]) => `\t${m} ${v}`);
  const replaces = Object.entries(target.replaces ?? {}).map(([m, to]) => `\t${m} => ${to}`);
  return [
    `module toolwall.local/${target.module}`,
    "",
    "go 1.26",
    "",
    `require (\n${requires.join("\n")}\n)`,
    replaces.length > 0 ? `\nreplace (\n${replaces.join("\n")}\n)` : "",
    "",
  ].join("\n");
}

async function buildTarget(dir: string, target: GoTarget, log: Log): Promise<void> {
  const moduleDir = join(dir, "src", target.module);
  await mkdir(moduleDir, { recursive: true });
  await writeFile(join(moduleDir, "go.mod"), goModFile(target));
  for (const [name, text] of Object.entries(target.files ?? {})) await writeFile(join(moduleDir, name), text);
  const packages = Object.values(target.packages);
  log(`resolving modules for ${Object.keys(target.packages).join(", ")}`);
  await run("go", ["mod", "download"], { cwd: moduleDir });
  // `go list -deps` downloads what the packages import and tells us how many packages to expect.
  const deps = (await run("go", ["list", "-deps", ...packages], { cwd: moduleDir }))
    .split("\n")
    .filter(Boolean);
  const standard = (await run("go", ["list", "std"], { cwd: moduleDir })).split("\n").filter(Boolean);
  const stdSet = new Set(standard);
  const total = deps.filter((p) => !stdSet.has(p)).length;
  let compiled = 0;
  let lastReport = 0;
  const started = Date.now();
  const binDir = join(dir, "bin");
  await mkdir(binDir, { recursive: true });
  const tmpOut = join(dir, `.tmp-${target.module}`);
  await rm(tmpOut, { recursive: true, force: true });
  await mkdir(tmpOut, { recursive: true });
  await run(
    "go",
    [
      "build",
      "-v",
      "-trimpath",
      "-ldflags",
      ["-s", "-w", ...target.ldflags].join(" "),
      "-o",
      tmpOut,
      ...packages,
    ],
    {
      cwd: moduleDir,
      env: { CGO_ENABLED: "0" },
      onStderrLine: (line) => {
        if (stdSet.has(line.trim())) return;
        compiled++;
        const now = Date.now();
        if (now - lastReport > 15_000) {
          lastReport = now;
          log(
            `${target.module}: ${compiled}/${total} packages compiled (${Math.round((now - started) / 1000)} s)`,
          );
        }
      },
    },
  );
  for (const [name, pkg] of Object.entries(target.packages)) {
    // Go names a binary after the last path element that is not a major version suffix (/v3).
    const built = join(tmpOut, pkg.split("/").findLast((part) => !/^v\d+$/.test(part))!);
    await rename(built, join(binDir, name));
  }
  await rm(tmpOut, { recursive: true, force: true });
  await writeFile(join(dir, `${target.module}.stamp`), modules[target.module]!.stamp);
  log(`${target.module}: built in ${Math.round((Date.now() - started) / 1000)} s`);
}

async function targets(dir: string): Promise<GoTarget[]> {
  const k8sMinor = KUBERNETES_VERSION.split(".")[1]!;
  const versionFlags = ["k8s.io/component-base/version", "k8s.io/client-go/pkg/version"].flatMap((pkg) => [
    `-X ${pkg}.gitVersion=v${KUBERNETES_VERSION}`,
    `-X ${pkg}.gitMajor=1`,
    `-X ${pkg}.gitMinor=${k8sMinor}`,
    `-X ${pkg}.gitTreeState=clean`,
  ]);
  const kubeDir = join(dir, "src", "kubernetes");
  await mkdir(kubeDir, { recursive: true });
  return [
    {
      module: "kubernetes",
      requires: { "k8s.io/kubernetes": `v${KUBERNETES_VERSION}` },
      replaces: await stagingReplaces(kubeDir),
      packages: {
        "kube-apiserver": "k8s.io/kubernetes/cmd/kube-apiserver",
        kubectl: "k8s.io/kubernetes/cmd/kubectl",
        kubelet: "k8s.io/kubernetes/cmd/kubelet",
        "kube-proxy": "k8s.io/kubernetes/cmd/kube-proxy",
        "kube-controller-manager": "k8s.io/kubernetes/cmd/kube-controller-manager",
        "kube-scheduler": "k8s.io/kubernetes/cmd/kube-scheduler",
      },
      ldflags: versionFlags,
    },
    {
      module: "etcd",
      requires: { "go.etcd.io/etcd/server/v3": `v${ETCD_VERSION}` },
      packages: { etcd: "go.etcd.io/etcd/server/v3" },
      ldflags: [],
    },
    {
      module: "helm",
      requires: { "helm.sh/helm/v4": `v${HELM_VERSION}` },
      packages: { helm: "helm.sh/helm/v4/cmd/helm" },
      ldflags: [`-X helm.sh/helm/v4/internal/version.version=v${HELM_VERSION}`],
    },
    {
      module: "coredns",
      requires: { "github.com/coredns/coredns": `v${COREDNS_VERSION}` },
      packages: { coredns: "github.com/coredns/coredns" },
      ldflags: [],
    },
    {
      module: "pause",
      requires: {},
      packages: { pause: "toolwall.local/pause" },
      ldflags: [],
      files: { "main.go": PAUSE_SOURCE },
    },
  ];
}

async function isBuilt(dir: string, module: string): Promise<boolean> {
  const { stamp, binaries } = modules[module]!;
  const written = await readFile(join(dir, `${module}.stamp`), "utf8").catch(() => "");
  return written === stamp && binaries.every((name) => existsSync(join(dir, "bin", name)));
}

async function allBuilt(dir: string): Promise<boolean> {
  for (const module of Object.keys(modules)) {
    if (!(await isBuilt(dir, module))) return false;
  }
  return true;
}

/** An exclusive lock file; a lock left by a dead process is taken over. */
async function withLock<T>(path: string, log: Log, body: () => Promise<T>): Promise<T> {
  let waitingSince = 0;
  for (;;) {
    try {
      const handle = await open(path, "wx");
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number(await readFile(path, "utf8").catch(() => "0"));
      if (holder > 0 && !processAlive(holder)) {
        await rm(path, { force: true });
        continue;
      }
      const age = await stat(path).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (holder === 0 && age > 10_000) {
        await rm(path, { force: true });
        continue;
      }
      if (waitingSince === 0) {
        waitingSince = Date.now();
        log(`waiting for another build (pid ${holder}) holding ${path}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }
  try {
    return await body();
  } finally {
    await rm(path, { force: true });
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Builds whatever is missing from the cache and returns the binaries' paths. */
export async function ensureBinaries(log: Log = (line) => process.stderr.write(`[k8s-binaries] ${line}\n`)) {
  const dir = binariesDir();
  if (await allBuilt(dir)) return binaryPaths(dir);
  await mkdir(dir, { recursive: true });
  return withLock(join(dir, ".build.lock"), log, async () => {
    log(`building into ${dir} (cold builds take many minutes)`);
    for (const target of await targets(dir)) {
      if (await isBuilt(dir, target.module)) continue;
      await buildTarget(dir, target, log);
    }
    return binaryPaths(dir);
  });
}

if (import.meta.main) {
  const started = Date.now();
  const paths = await ensureBinaries();
  process.stderr.write(
    `[k8s-binaries] ready in ${Math.round((Date.now() - started) / 1000)} s: ${paths.kubeApiserver}\n`,
  );
}
