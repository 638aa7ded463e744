/**
 * Network-namespace test harness: a "pod" namespace and an "internet" namespace joined by a veth pair
 * (IPv4 + IPv6), names resolved through per-namespace hosts/resolv.conf files (`ip netns exec`
 * bind-mounts /etc/netns/<name>/* over /etc in a private mount namespace), processes run as any uid.
 * Every name carries this process's pid, so parallel test files never collide, and namespaces left
 * behind by a dead test process are removed on the next start.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe } from "vitest";

const execFileAsync = promisify(execFile);

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const nodeBinary = process.execPath;
export const toolwallBin = join(repoRoot, "bin", "toolwall.js");

export const AGENT_UID = 1000;
export const SIDECAR_UID = 1337;

/** Addresses are private to the namespaces the harness creates; nothing is routed off the machine. */
export const POD_V4 = "198.18.0.1";
export const INTERNET_V4 = "198.18.0.2";
export const INTERNET_V4_OTHER = "198.18.0.3";
export const POD_V6 = "fd00:7477::1";
export const INTERNET_V6 = "fd00:7477::2";
export const INTERNET_V6_OTHER = "fd00:7477::3";

const NAME_PATTERN = /^tw-(\d+)-(\d+)-(pod|inet)$/;
let counter = 0;
const liveTopologies = new Set<Topology>();

/** Why namespace tests cannot run here, or undefined when they can. */
export function netnsPrerequisiteMissing(): string | undefined {
  if (process.getuid?.() !== 0) return "root (network namespaces and iptables need CAP_NET_ADMIN)";
  for (const tool of ["ip", "iptables", "ip6tables", "iptables-restore", "setpriv", "curl"]) {
    if (!which(tool)) return `the '${tool}' command (run scripts/install-prereqs.sh)`;
  }
  if (!existsSync("/usr/bin/python3")) return "a system python3 in /usr/bin (run scripts/install-prereqs.sh)";
  return undefined;
}

function which(tool: string): boolean {
  return ["/usr/sbin", "/usr/bin", "/sbin", "/bin", ...(process.env.PATH ?? "").split(":")].some((dir) =>
    existsSync(join(dir, tool)),
  );
}

/** `describe` that skips (outside CI) or fails (CI=true) when namespaces cannot be made here. */
export function describeNetns(name: string, body: () => void): void {
  const missing = netnsPrerequisiteMissing();
  if (!missing) {
    describe(name, body);
  } else if (process.env.CI === "true") {
    describe(name, () => {
      throw new Error(`network-namespace tests need ${missing}`);
    });
  } else {
    describe.skip(`${name} (skipped: needs ${missing})`, body);
  }
}

export interface RunOptions {
  uid?: number;
  gid?: number;
  env?: Record<string, string>;
  input?: string;
  timeoutMs?: number;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Spawned {
  child: ChildProcess;
  output(): string;
  /** Resolves with the first stdout line matching, rejects if the process exits first. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  stop(): Promise<void>;
}

function wrap(namespace: string, command: string, args: string[], options: RunOptions): string[] {
  const uid = options.uid ?? 0;
  const gid = options.gid ?? uid;
  const identity = uid === 0 ? [] : ["setpriv", `--reuid=${uid}`, `--regid=${gid}`, "--clear-groups", "--"];
  return ["netns", "exec", namespace, ...identity, command, ...args];
}

/** Other uids get the system PATH: root's PATH may lead into /root (pyenv shims), unreadable to them. */
function environment(options: RunOptions): Record<string, string> {
  const systemPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  const path = (options.uid ?? 0) === 0 ? (process.env.PATH ?? systemPath) : systemPath;
  return { PATH: path, HOME: "/tmp", ...options.env };
}

export class Topology {
  readonly pod: string;
  readonly internet: string;
  private readonly children = new Set<ChildProcess>();

  constructor(id: number) {
    this.pod = `tw-${process.pid}-${id}-pod`;
    this.internet = `tw-${process.pid}-${id}-inet`;
  }

  async setUp(hosts: Record<string, string[]>): Promise<void> {
    liveTopologies.add(this);
    const ip = (...args: string[]) => execFileAsync("ip", args);
    await ip("netns", "add", this.pod);
    await ip("netns", "add", this.internet);
    await ip(
      "link",
      "add",
      "eth0",
      "netns",
      this.pod,
      "type",
      "veth",
      "peer",
      "eth0",
      "netns",
      this.internet,
    );
    const inPod = (...args: string[]) => ip("-n", this.pod, ...args);
    const inInternet = (...args: string[]) => ip("-n", this.internet, ...args);
    await Promise.all([
      inPod("addr", "add", `${POD_V4}/24`, "dev", "eth0"),
      inPod("addr", "add", `${POD_V6}/64`, "dev", "eth0", "nodad"),
      // INTERNET_V4 first, so it is the subnet's primary address and replies from sockets bound to
      // `::` keep it as their source (added at once, either could be: a connected UDP client then
      // drops the reply from the other).
      inInternet("addr", "add", `${INTERNET_V4}/24`, "dev", "eth0").then(() =>
        inInternet("addr", "add", `${INTERNET_V4_OTHER}/24`, "dev", "eth0"),
      ),
      inInternet("addr", "add", `${INTERNET_V6}/64`, "dev", "eth0", "nodad"),
      // Deprecated, so replies from sockets bound to `::` keep INTERNET_V6 as their source.
      inInternet("addr", "add", `${INTERNET_V6_OTHER}/64`, "dev", "eth0", "nodad", "preferred_lft", "0"),
    ]);
    for (const run of [inPod, inInternet]) {
      await run("link", "set", "lo", "up");
      await run("link", "set", "eth0", "up");
    }
    await inPod("route", "add", "default", "via", INTERNET_V4);
    await inPod("-6", "route", "add", "default", "via", INTERNET_V6);
    const etc = `/etc/netns/${this.pod}`;
    mkdirSync(etc, { recursive: true });
    writeFileSync(join(etc, "resolv.conf"), `nameserver ${INTERNET_V4}\nnameserver ${INTERNET_V6}\n`);
    this.writeHosts(hosts);
  }

  writeHosts(hosts: Record<string, string[]>): void {
    const lines = ["127.0.0.1 localhost", "::1 localhost"];
    for (const [name, addresses] of Object.entries(hosts)) {
      for (const address of addresses) lines.push(`${address} ${name}`);
    }
    writeFileSync(join(`/etc/netns/${this.pod}`, "hosts"), `${lines.join("\n")}\n`);
  }

  /** Runs a command to completion inside a namespace. */
  run(namespace: string, command: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
    return new Promise((resolve, reject) => {
      const child = spawn("ip", wrap(namespace, command, args, options), {
        env: environment(options),
        stdio: ["pipe", "pipe", "pipe"],
      });
      this.children.add(child);
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk) => {
        stdout += chunk;
      });
      child.stderr.on("data", (chunk) => {
        stderr += chunk;
      });
      const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 20_000);
      child.on("error", reject);
      child.on("close", (code) => {
        clearTimeout(timer);
        this.children.delete(child);
        resolve({ code, stdout, stderr });
      });
      child.stdin.end(options.input ?? "");
    });
  }

  /** Starts a long-running process inside a namespace; `destroy()` stops it if the test does not. */
  spawn(namespace: string, command: string, args: string[], options: RunOptions = {}): Spawned {
    const child = spawn("ip", wrap(namespace, command, args, options), {
      env: environment(options),
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.children.add(child);
    let output = "";
    const waiters: Array<() => void> = [];
    const onData = (chunk: Buffer) => {
      output += chunk;
      for (const waiter of waiters) waiter();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
    exited.then(() => {
      this.children.delete(child);
      for (const waiter of waiters) waiter();
    });
    return {
      child,
      output: () => output,
      waitForLine: (pattern, timeoutMs = 15_000) =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new Error(`timed out waiting for ${pattern} in:\n${output}`)),
            timeoutMs,
          );
          const check = () => {
            const line = output.split("\n").find((l) => pattern.test(l));
            if (line !== undefined) {
              clearTimeout(timer);
              resolve(line);
            } else if (child.exitCode !== null || child.signalCode !== null) {
              clearTimeout(timer);
              reject(
                new Error(
                  `process exited (${child.exitCode ?? child.signalCode}) before ${pattern}:\n${output}`,
                ),
              );
            }
          };
          waiters.push(check);
          check();
        }),
      stop: async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
        await exited;
      },
    };
  }

  async destroy(): Promise<void> {
    for (const child of this.children) child.kill("SIGKILL");
    this.children.clear();
    removeNamespaces([this.pod, this.internet]);
    liveTopologies.delete(this);
  }
}

function removeNamespaces(names: string[]): void {
  for (const name of names) {
    try {
      execFileSync("ip", ["netns", "del", name], { stdio: "ignore" });
    } catch {
      // already gone
    }
    rmSync(`/etc/netns/${name}`, { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function removeStaleNamespaces(): void {
  let listing = "";
  try {
    listing = execFileSync("ip", ["netns", "list"], { encoding: "utf8" });
  } catch {
    return;
  }
  const stale = listing
    .split("\n")
    .map((line) => line.split(" ")[0] ?? "")
    .filter((name) => {
      const match = NAME_PATTERN.exec(name);
      return match !== null && !isAlive(Number(match[1]));
    });
  removeNamespaces(stale);
}

process.on("exit", () => {
  for (const topology of liveTopologies) {
    removeNamespaces([topology.pod, topology.internet]);
  }
});

/** Creates a pod/internet pair; the caller must `destroy()` it (an exit hook also does). */
export async function createTopology(hosts: Record<string, string[]> = {}): Promise<Topology> {
  removeStaleNamespaces();
  const topology = new Topology(counter++);
  try {
    await topology.setUp(hosts);
  } catch (error) {
    await topology.destroy();
    throw error;
  }
  return topology;
}
