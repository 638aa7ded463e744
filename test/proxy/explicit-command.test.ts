/** `toolwall proxy --ca-dir` as a process: the CA is created once, loaded on the next start. */
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CertificateAuthority } from "../../src/tls/ca.ts";

const policy = `
apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: { name: laptop, namespace: agents }
spec:
  egress:
    rules: [{ name: no-paste, action: Deny, hosts: ["*.bin.example"] }]
`;

const directory = mkdtempSync(join(tmpdir(), "toolwall-explicit-cli-"));
const caDir = join(directory, "ca");
const policyFile = join(directory, "policy.yaml");
writeFileSync(policyFile, policy);
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Starts the proxy, sends one CONNECT to a denied host, stops it; returns its stderr and the answer. */
async function runOnce(): Promise<{ stderr: string; answer: string; code: number | null }> {
  const child = spawn(
    process.execPath,
    [
      "bin/toolwall.js",
      "proxy",
      "-f",
      policyFile,
      "--listen",
      "127.0.0.1:0",
      "--admin",
      "127.0.0.1:0",
      "--ca-dir",
      caDir,
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const deadline = Date.now() + 20_000;
  while (!/listening on http:\/\/[^:]+:(\d+)/.test(stderr)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`proxy did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const port = Number(/listening on http:\/\/[^:]+:(\d+)/.exec(stderr)![1]);
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () =>
      socket.write("CONNECT paste.bin.example:443 HTTP/1.1\r\nHost: paste.bin.example:443\r\n\r\n"),
    );
    let text = "";
    socket.on("data", (chunk) => {
      text += chunk.toString();
    });
    socket.on("close", () => resolve(text));
    socket.on("error", reject);
  });
  child.kill("SIGTERM");
  return { stderr, answer, code: await exited };
}

describe("toolwall proxy --ca-dir", () => {
  it("creates the CA on first start, loads the same one on the next, and denies CONNECT by egress policy", async () => {
    const first = await runOnce();
    expect(first.stderr).toContain(`created the CA in ${caDir}`);
    // What a Node agent needs to go through it, NODE_USE_ENV_PROXY=1 included (issue 10 item 6).
    expect(first.stderr).toMatch(
      new RegExp(
        `start the agent with HTTPS_PROXY=http://\\S+ HTTP_PROXY=\\S+ NODE_USE_ENV_PROXY=1 NODE_EXTRA_CA_CERTS=${caDir}/ca\\.crt`,
      ),
    );
    expect(first.answer).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
    expect(first.answer).toContain("x-toolwall-rule: agents/laptop#egress.rules[no-paste]");
    expect(first.code).toBe(0);
    const certificate = readFileSync(join(caDir, "ca.crt"), "utf8");
    expect(statSync(join(caDir, "ca.key")).mode & 0o777).toBe(0o600);
    const second = await runOnce();
    expect(second.stderr).toContain(`loaded the CA in ${caDir}`);
    expect(readFileSync(join(caDir, "ca.crt"), "utf8")).toBe(certificate);
  });

  it("refuses a CA key others can read, and a key that is not the certificate's", async () => {
    const dir = join(directory, "checks");
    await CertificateAuthority.persistent(dir);
    chmodSync(join(dir, "ca.key"), 0o644);
    await expect(CertificateAuthority.persistent(dir)).rejects.toThrow(/readable by others/);
    chmodSync(join(dir, "ca.key"), 0o600);
    const other = join(directory, "other");
    await CertificateAuthority.persistent(other);
    writeFileSync(join(dir, "ca.crt"), readFileSync(join(other, "ca.crt")));
    await expect(CertificateAuthority.persistent(dir)).rejects.toThrow(/is not the key of/);
  });

  it("replaces a stored CA that has expired", async () => {
    const dir = join(directory, "expiry");
    const old = await CertificateAuthority.persistent(dir, { validityDays: 1 });
    const later = await CertificateAuthority.persistent(dir, {
      now: () => new Date(Date.now() + 2 * 86_400_000),
    });
    expect(later.created).toBe(true);
    expect(later.ca.certificatePem).not.toBe(old.ca.certificatePem);
  });
});
