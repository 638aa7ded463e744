/**
 * A real Kubernetes control plane: etcd and kube-apiserver. By default on loopback with no kubelet,
 * scheduler or controller manager (pods are stored, never run); test/cluster/node.ts starts it on the
 * node's address, inside the node's network namespace, next to a kubelet. Certificates and
 * service-account keys are generated per start; the admin identity is a client certificate in group
 * system:masters.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { webcrypto } from "node:crypto";
import { closeSync, mkdirSync, openSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { request } from "node:https";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { stringify } from "yaml";
import {
  type CaKeyPair,
  createCertificateAuthority,
  issueCertificate,
  type KeyPairPem,
  privateKeyPem,
  publicKeyPem,
} from "../../src/k8s/pki.ts";
import type { KubeBinaries } from "./binaries.ts";

export interface ControlPlane {
  /** https://ADDRESS:PORT */
  server: string;
  kubeconfigPath: string;
  caPem: string;
  /** Folder holding certificates, logs and etcd data; removed on stop. */
  dir: string;
  ca: CaKeyPair;
  admin: KeyPairPem;
  /** Files the node's components reuse: CA, admin client certificate, service-account key. */
  files: Record<"ca" | "adminCert" | "adminKey" | "saKey" | "saPub", string>;
  children: ChildProcess[];
  stop(): Promise<void>;
}

export interface ControlPlaneOptions {
  /** Address the API server listens on and advertises; loopback (no kubelets) by default. */
  address?: string;
  serviceCidr?: string;
  /** Folder to use instead of a fresh temporary one. */
  dir?: string;
  /** Command prefix each process runs under (e.g. nsenter into a network namespace). */
  launcher?: string[];
  /** The processes outlive this one (`make cluster`); their pids are written to DIR/pids/. */
  detached?: boolean;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

export interface LaunchOptions {
  launcher?: string[];
  detached?: boolean;
  /** Folder whose pids/ subfolder records the process (for a teardown by another process). */
  pidDir?: string;
}

/** Starts a daemon logging to a file; with `detached` it keeps running after this process exits. */
export function startProcess(
  binary: string,
  args: string[],
  logFile: string,
  options: LaunchOptions = {},
): ChildProcess {
  const log = openSync(logFile, "a");
  const [command, ...prefix] = [...(options.launcher ?? []), binary];
  const child = spawn(command!, [...prefix, ...args], {
    stdio: ["ignore", log, log],
    detached: options.detached ?? false,
  });
  closeSync(log);
  if (options.detached) child.unref();
  if (options.pidDir && child.pid !== undefined) {
    mkdirSync(join(options.pidDir, "pids"), { recursive: true });
    writeFileSync(join(options.pidDir, "pids", `${basename(binary)}.pid`), String(child.pid));
  }
  return child;
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  child: ChildProcess,
  logFile: string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      const log = await readFile(logFile, "utf8").catch(() => "");
      throw new Error(`${what} exited with ${child.exitCode} before it was ready:\n${log.slice(-4000)}`);
    }
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const log = await readFile(logFile, "utf8").catch(() => "");
  throw new Error(`${what} not ready after ${timeoutMs} ms:\n${log.slice(-4000)}`);
}

function httpsOk(url: string, tls: { ca: string; cert: string; key: string }): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(url, { ...tls, agent: false, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on("error", () => resolve(false));
    req.on("timeout", () => req.destroy());
    req.end();
  });
}

export async function startControlPlane(
  binaries: KubeBinaries,
  options: ControlPlaneOptions = {},
): Promise<ControlPlane> {
  const address = options.address ?? "127.0.0.1";
  const loopback = address === "127.0.0.1";
  const serviceCidr = options.serviceCidr ?? "10.0.0.0/24";
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), "toolwall-k8s-")));
  await mkdir(dir, { recursive: true });
  const launch: LaunchOptions = { launcher: options.launcher, detached: options.detached, pidDir: dir };
  const children: ChildProcess[] = [];
  const stop = async () => {
    for (const child of children.reverse()) await stopProcess(child);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    // In a network namespace of its own the well-known ports are free.
    const [etcdClientPort, etcdPeerPort, apiPort] = loopback
      ? [await freePort(), await freePort(), await freePort()]
      : [2379, 2380, 6443];
    const ca = await createCertificateAuthority("toolwall-test-ca", 2);
    const serving = await issueCertificate(ca, {
      commonName: "kube-apiserver",
      dnsNames: ["localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"],
      ipAddresses: [...new Set(["127.0.0.1", address, firstServiceIp(serviceCidr)])],
      usage: "server",
      validDays: 2,
    });
    const admin = await issueCertificate(ca, {
      commonName: "toolwall-test-admin",
      organizations: ["system:masters"],
      usage: "client",
      validDays: 2,
    });
    const saKeys = (await webcrypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
      "sign",
      "verify",
    ])) as webcrypto.CryptoKeyPair;
    const files = {
      ca: join(dir, "ca.crt"),
      adminCert: join(dir, "admin.crt"),
      adminKey: join(dir, "admin.key"),
      servingCert: join(dir, "apiserver.crt"),
      servingKey: join(dir, "apiserver.key"),
      saKey: join(dir, "sa.key"),
      saPub: join(dir, "sa.pub"),
      kubeconfig: join(dir, "kubeconfig"),
      etcdLog: join(dir, "etcd.log"),
      apiLog: join(dir, "kube-apiserver.log"),
    };
    await writeFile(files.ca, ca.certPem);
    await writeFile(files.adminCert, admin.certPem);
    await writeFile(files.adminKey, admin.keyPem, { mode: 0o600 });
    await writeFile(files.servingCert, serving.certPem);
    await writeFile(files.servingKey, serving.keyPem, { mode: 0o600 });
    await writeFile(files.saKey, await privateKeyPem(saKeys.privateKey), { mode: 0o600 });
    await writeFile(files.saPub, await publicKeyPem(saKeys.publicKey));
    await mkdir(join(dir, "etcd"), { mode: 0o700 });

    // In a namespace of its own the host (this process) reaches etcd on the node address only.
    const etcdUrl = `http://${address}:${etcdClientPort}`;
    const peerUrl = `http://${address}:${etcdPeerPort}`;
    const etcd = startProcess(
      binaries.etcd,
      [
        "--name=test",
        `--data-dir=${join(dir, "etcd")}`,
        `--listen-client-urls=${etcdUrl}`,
        `--advertise-client-urls=${etcdUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=test=${peerUrl}`,
        // Test data is thrown away: skipping fsync makes etcd much faster on a shared disk.
        "--unsafe-no-fsync",
        "--log-level=warn",
      ],
      files.etcdLog,
      launch,
    );
    children.push(etcd);
    await waitFor("etcd", async () => (await fetch(`${etcdUrl}/health`)).ok, etcd, files.etcdLog, 30_000);

    const server = `https://${address}:${apiPort}`;
    const apiserver = startProcess(
      binaries.kubeApiserver,
      [
        `--etcd-servers=${etcdUrl}`,
        `--bind-address=${loopback ? address : "0.0.0.0"}`,
        `--advertise-address=${address}`,
        // No kubelets, no kubernetes Service endpoints to keep: and loopback is refused otherwise.
        ...(loopback
          ? ["--endpoint-reconciler-type=none"]
          : [
              `--kubelet-client-certificate=${files.adminCert}`,
              `--kubelet-client-key=${files.adminKey}`,
              // The node's name is not in any DNS the API server asks.
              "--kubelet-preferred-address-types=InternalIP",
            ]),
        `--secure-port=${apiPort}`,
        `--cert-dir=${dir}`,
        `--tls-cert-file=${files.servingCert}`,
        `--tls-private-key-file=${files.servingKey}`,
        `--client-ca-file=${files.ca}`,
        "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
        `--service-account-key-file=${files.saPub}`,
        `--service-account-signing-key-file=${files.saKey}`,
        "--authorization-mode=RBAC",
        `--service-cluster-ip-range=${serviceCidr}`,
        "--enable-admission-plugins=NamespaceLifecycle,ServiceAccount,MutatingAdmissionWebhook,ValidatingAdmissionWebhook,ValidatingAdmissionPolicy",
        // Lets the tests see the webhook's refusal of privileged pods rather than the API server's.
        "--allow-privileged=true",
        "--enable-priority-and-fairness=false",
        "--profiling=false",
        "--v=1",
      ],
      files.apiLog,
      launch,
    );
    children.push(apiserver);
    const tls = { ca: ca.certPem, cert: admin.certPem, key: admin.keyPem };
    await waitFor("kube-apiserver", () => httpsOk(`${server}/readyz`, tls), apiserver, files.apiLog, 90_000);

    const b64 = (text: string) => Buffer.from(text).toString("base64");
    await writeFile(
      files.kubeconfig,
      stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [
          { name: "toolwall-test", cluster: { server, "certificate-authority-data": b64(ca.certPem) } },
        ],
        users: [
          {
            name: "admin",
            user: { "client-certificate-data": b64(admin.certPem), "client-key-data": b64(admin.keyPem) },
          },
        ],
        contexts: [{ name: "toolwall-test", context: { cluster: "toolwall-test", user: "admin" } }],
        "current-context": "toolwall-test",
      }),
      { mode: 0o600 },
    );
    return {
      server,
      kubeconfigPath: files.kubeconfig,
      caPem: ca.certPem,
      dir,
      ca,
      admin,
      files,
      children,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The API server's own Service address: the first host address of the service range. */
function firstServiceIp(cidr: string): string {
  const octets = cidr.split("/")[0]!.split(".").map(Number);
  octets[3] = octets[3]! + 1;
  return octets.join(".");
}
