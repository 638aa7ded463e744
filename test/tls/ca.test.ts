import { execFile } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer, type Server } from "node:tls";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CertificateAuthority, validateServerName } from "../../src/tls/ca.ts";
import { mergedBundle, writeTrustFiles } from "../../src/tls/trust-files.ts";
import { x509 } from "../../src/tls/x509.ts";

const run = promisify(execFile);
const NAME = "api.toolwall-test.example";

describe("per-pod certificate authority", () => {
  let ca: CertificateAuthority;
  let root: X509Certificate;

  beforeAll(async () => {
    ca = await CertificateAuthority.create({ commonName: "Toolwall pod CA test" });
    root = new X509Certificate(ca.certificatePem);
  });

  it("is a self-signed ECDSA P-256 root with critical CA:TRUE and keyCertSign", () => {
    expect(root.ca).toBe(true);
    expect(root.checkIssued(root)).toBe(true);
    expect(root.verify(root.publicKey)).toBe(true);
    expect(root.publicKey.asymmetricKeyDetails?.namedCurve).toBe("prime256v1");
    const basic = ca.certificate.getExtension(x509.BasicConstraintsExtension);
    const usage = ca.certificate.getExtension(x509.KeyUsagesExtension);
    expect(basic?.critical).toBe(true);
    expect(basic?.ca).toBe(true);
    expect(usage?.critical).toBe(true);
    expect((usage?.usages ?? 0) & x509.KeyUsageFlags.keyCertSign).toBeTruthy();
  });

  it("has a short validity and never exposes its private key", () => {
    const days = (Date.parse(root.validTo) - Date.parse(root.validFrom)) / 86_400_000;
    expect(days).toBeLessThanOrEqual(91);
    expect(JSON.stringify(ca)).not.toMatch(/PRIVATE KEY/);
    expect(Object.values(ca).some((v) => typeof v === "string" && v.includes("PRIVATE"))).toBe(false);
  });

  it("issues a leaf per name with SAN, serverAuth, and the CA's signature", async () => {
    const leaf = await ca.leafFor(NAME);
    const certificate = new X509Certificate(leaf.certificatePem);
    expect(certificate.subjectAltName).toBe(`DNS:${NAME}`);
    expect(certificate.keyUsage).toEqual(["1.3.6.1.5.5.7.3.1"]);
    expect(certificate.ca).toBe(false);
    expect(certificate.checkIssued(root)).toBe(true);
    expect(certificate.verify(root.publicKey)).toBe(true);
    expect(certificate.checkHost(NAME)).toBe(NAME);
    expect(certificate.checkHost("other.example")).toBeUndefined();
    const ipLeaf = new X509Certificate((await ca.leafFor("198.18.0.2")).certificatePem);
    expect(ipLeaf.subjectAltName).toBe("IP Address:198.18.0.2");
  });

  it("caches leaves per name and evicts the least recently used", async () => {
    const small = await CertificateAuthority.create({ leafCacheSize: 2 });
    const a = await small.leafFor("a.example");
    expect(await small.leafFor("A.example.")).toBe(a);
    await small.leafFor("b.example");
    await small.leafFor("a.example");
    await small.leafFor("c.example");
    expect(small.cachedLeafCount).toBe(2);
    expect(await small.leafFor("a.example")).toBe(a);
    expect(await small.leafFor("b.example")).not.toBe(undefined);
  });

  it("reissues a leaf past half its life", async () => {
    let now = Date.now();
    const clocked = await CertificateAuthority.create({ leafValidityHours: 2, now: () => new Date(now) });
    const first = await clocked.leafFor("x.example");
    now += 61 * 60_000;
    const second = await clocked.leafFor("x.example");
    expect(second).not.toBe(first);
    expect(second.notAfter.getTime()).toBeGreaterThan(first.notAfter.getTime());
  });

  it("refuses names that are not host names", () => {
    expect(() => validateServerName("bad name")).toThrow(/not a valid server name/);
    expect(() => validateServerName("*.example.com")).toThrow(/not a valid server name/);
    expect(() => validateServerName("")).toThrow();
    expect(validateServerName("API.Example.COM.")).toBe("api.example.com");
  });
});

describe("trust files", () => {
  let ca: CertificateAuthority;
  let dir: string;
  let server: Server;
  let port: number;

  beforeAll(async () => {
    ca = await CertificateAuthority.create();
    dir = mkdtempSync(join(tmpdir(), "toolwall-ca-"));
    writeTrustFiles(join(dir, "ca"), ca.certificatePem);
    const leaf = await ca.leafFor(NAME);
    server = createServer({ cert: leaf.certificatePem, key: leaf.keyPem }, (socket) => {
      socket.end("HTTP/1.1 200 OK\r\ncontent-length: 7\r\nconnection: close\r\n\r\ntrusted");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  });

  afterAll(() => {
    server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("writes ca.crt and a bundle of public roots plus the CA, world-readable, and no key", () => {
    const files = readdirSync(join(dir, "ca")).sort();
    expect(files).toEqual(["ca-bundle.pem", "ca.crt"]);
    for (const file of files) {
      const path = join(dir, "ca", file);
      expect(statSync(path).mode & 0o777).toBe(0o644);
      expect(readFileSync(path, "utf8")).not.toMatch(/PRIVATE KEY/);
    }
    const bundle = readFileSync(join(dir, "ca", "ca-bundle.pem"), "utf8");
    expect(bundle.match(/BEGIN CERTIFICATE/g)?.length).toBeGreaterThan(50);
    expect(bundle).toContain(ca.certificatePem.trim());
    expect(mergedBundle("A", "B\n")).toBe("A\n# Toolwall pod CA\nB\n");
  });

  it("is trusted by Node through NODE_EXTRA_CA_CERTS", async () => {
    const script = `require("node:https").get({host:"127.0.0.1",port:${port},servername:"${NAME}",path:"/"},(r)=>{let b="";r.on("data",(c)=>b+=c);r.on("end",()=>console.log(b))}).on("error",(e)=>{console.error(e.code);process.exit(1)})`;
    const trusted = await run(process.execPath, ["-e", script], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, "ca", "ca.crt") },
    });
    expect(trusted.stdout.trim()).toBe("trusted");
    const untrusted = await run(process.execPath, ["-e", script], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: "" },
    }).catch((error: { stderr: string }) => error);
    expect((untrusted as { stderr: string }).stderr).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED/);
  });

  it("is trusted by curl through CURL_CA_BUNDLE", async () => {
    const args = ["-sS", "--resolve", `${NAME}:${port}:127.0.0.1`, `https://${NAME}:${port}/`];
    const trusted = await run("curl", args, {
      env: { ...process.env, CURL_CA_BUNDLE: join(dir, "ca", "ca-bundle.pem") },
    });
    expect(trusted.stdout).toBe("trusted");
    const untrusted = await run("curl", args, { env: { ...process.env, CURL_CA_BUNDLE: "" } }).catch(
      (error: { code: number }) => error,
    );
    expect((untrusted as { code: number }).code).toBe(60);
  });

  it("is trusted by python3 through SSL_CERT_FILE", async () => {
    const script = [
      "import socket, ssl, sys",
      "ctx = ssl.create_default_context()",
      `s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", ${port})), server_hostname="${NAME}")`,
      's.sendall(b"GET / HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")',
      "print(s.recv(4096).decode().split('\\r\\n\\r\\n')[1])",
    ].join("\n");
    const trusted = await run("python3", ["-c", script], {
      env: { ...process.env, SSL_CERT_FILE: join(dir, "ca", "ca-bundle.pem") },
    });
    expect(trusted.stdout.trim()).toBe("trusted");
  });
});
