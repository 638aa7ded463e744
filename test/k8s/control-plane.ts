/**
 * A real Kubernetes control plane on loopback: etcd and kube-apiserver, no kubelet, scheduler or
 * controller manager (pods are stored, never run). Certificates and service-account keys are
 * generated per start; the admin identity is a client certificate in group system:masters.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { webcrypto } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { request } from "node:https";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import {
  createCertificateAuthority,
  issueCertificate,
  privateKeyPem,
  publicKeyPem,
} from "../../src/k8s/pki.ts";
import type { KubeBinaries } from "./binaries.ts";

export interface ControlPlane {
  /** https://127.0.0.1:PORT */
  server: string;
  kubeconfigPath: string;
  caPem: string;
  /** Folder holding certificates, logs and etcd data; removed on stop. */
  dir: string;
  stop(): Promise<void>;
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

function startProcess(binary: string, args: string[], logFile: string): ChildProcess {
  const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
  const log = createWriteStream(logFile);
  child.stdout!.pipe(log, { end: false });
  child.stderr!.pipe(log, { end: false });
  child.on("close", () => log.end());
  return child;
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

async function waitFor(
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

export async function startControlPlane(binaries: KubeBinaries): Promise<ControlPlane> {
  const dir = await mkdtemp(join(tmpdir(), "toolwall-k8s-"));
  const children: ChildProcess[] = [];
  const stop = async () => {
    for (const child of children.reverse()) await stopProcess(child);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const [etcdClientPort, etcdPeerPort, apiPort] = [await freePort(), await freePort(), await freePort()];
    const ca = await createCertificateAuthority("toolwall-test-ca", 2);
    const serving = await issueCertificate(ca, {
      commonName: "kube-apiserver",
      dnsNames: ["localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"],
      ipAddresses: ["127.0.0.1", "10.0.0.1"],
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
      servingCert: join(dir, "apiserver.crt"),
      servingKey: join(dir, "apiserver.key"),
      saKey: join(dir, "sa.key"),
      saPub: join(dir, "sa.pub"),
      kubeconfig: join(dir, "kubeconfig"),
      etcdLog: join(dir, "etcd.log"),
      apiLog: join(dir, "kube-apiserver.log"),
    };
    await writeFile(files.ca, ca.certPem);
    await writeFile(files.servingCert, serving.certPem);
    await writeFile(files.servingKey, serving.keyPem, { mode: 0o600 });
    await writeFile(files.saKey, await privateKeyPem(saKeys.privateKey), { mode: 0o600 });
    await writeFile(files.saPub, await publicKeyPem(saKeys.publicKey));
    await mkdir(join(dir, "etcd"), { mode: 0o700 });

    const etcdUrl = `http://127.0.0.1:${etcdClientPort}`;
    const peerUrl = `http://127.0.0.1:${etcdPeerPort}`;
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
    );
    children.push(etcd);
    await waitFor("etcd", async () => (await fetch(`${etcdUrl}/health`)).ok, etcd, files.etcdLog, 30_000);

    const server = `https://127.0.0.1:${apiPort}`;
    const apiserver = startProcess(
      binaries.kubeApiserver,
      [
        `--etcd-servers=${etcdUrl}`,
        "--bind-address=127.0.0.1",
        "--advertise-address=127.0.0.1",
        // No kubelets, no kubernetes Service endpoints to keep: and loopback is refused otherwise.
        "--endpoint-reconciler-type=none",
        `--secure-port=${apiPort}`,
        `--cert-dir=${dir}`,
        `--tls-cert-file=${files.servingCert}`,
        `--tls-private-key-file=${files.servingKey}`,
        `--client-ca-file=${files.ca}`,
        "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
        `--service-account-key-file=${files.saPub}`,
        `--service-account-signing-key-file=${files.saKey}`,
        "--authorization-mode=RBAC",
        "--service-cluster-ip-range=10.0.0.0/24",
        "--enable-admission-plugins=NamespaceLifecycle,ServiceAccount,MutatingAdmissionWebhook,ValidatingAdmissionWebhook,ValidatingAdmissionPolicy",
        // Lets the tests see the webhook's refusal of privileged pods rather than the API server's.
        "--allow-privileged=true",
        "--enable-priority-and-fairness=false",
        "--profiling=false",
        "--v=1",
      ],
      files.apiLog,
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
    return { server, kubeconfigPath: files.kubeconfig, caPem: ca.certPem, dir, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
