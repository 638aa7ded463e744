/**
 * Explicit mode end to end on loopback: `toolwall sidecar --listen off --explicit …` in-process,
 * curl as the client through HTTPS_PROXY-style CONNECT and absolute-form requests.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAuthority } from "../../src/dataplane/explicit.ts";
import type { Sidecar } from "../../src/runtime/sidecar.ts";
import { CertificateAuthority } from "../../src/tls/ca.ts";
import { startFileSidecar } from "../helpers/sidecar.ts";

const run = promisify(execFile);
const MCP = "mcp.explicit-test.example";
const DENIED = "denied.explicit-test.example";

describe("explicit proxy mode", () => {
  let dir: string;
  let origin: Server;
  let originPort: number;
  let sidecar: Sidecar;
  let proxy: string;
  const audit = new PassThrough();
  let auditText = "";
  audit.on("data", (chunk) => {
    auditText += chunk;
  });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "toolwall-explicit-"));
    const testCa = await CertificateAuthority.create({ commonName: "explicit test CA" });
    const leaf = await testCa.leafFor(MCP);
    writeFileSync(join(dir, "test-ca.pem"), testCa.certificatePem);
    origin = createServer({ cert: leaf.certificatePem, key: leaf.keyPem }, (request, response) => {
      let body = "";
      request.on("data", (c) => {
        body += c;
      });
      request.on("end", () => {
        const message = JSON.parse(body || "{}") as { id?: number; method?: string };
        const text = JSON.stringify({
          jsonrpc: "2.0",
          id: message.id ?? null,
          result: { method: message.method },
        });
        response.writeHead(200, { "content-type": "application/json" });
        response.end(text);
      });
    });
    await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
    originPort = (origin.address() as { port: number }).port;
    sidecar = await startFileSidecar(
      dir,
      `apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: {name: laptop, namespace: local}
spec:
  servers:
    - {name: tools, transport: StreamableHTTP, url: "https://${MCP}:${originPort}/mcp"}
  toolPolicy:
    rules:
      - {action: Deny, servers: ["*"], tools: ["delete_*"], reason: destructive}
  egress:
    default: Deny
`,
      {
        explicit: { host: "127.0.0.1", port: 0 },
        extraCaFiles: [join(dir, "test-ca.pem")],
        resolve: [`${MCP}=127.0.0.1`, `${DENIED}=127.0.0.1`],
        namespace: "local",
        pod: "laptop",
        auditOut: audit,
      },
    );
    proxy = `http://127.0.0.1:${sidecar.explicitAddress?.port}`;
  });

  afterAll(async () => {
    await sidecar?.close();
    origin?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const mcpCall = (id: number, tool: string) =>
    run("curl", [
      "-sS",
      "--max-time",
      "5",
      "-x",
      proxy,
      "--cacert",
      join(dir, "ca", "ca-bundle.pem"),
      "-H",
      "content-type: application/json",
      "-H",
      "accept: application/json, text/event-stream",
      "-d",
      JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: tool, arguments: {} } }),
      `https://${MCP}:${originPort}/mcp`,
    ]);

  it("inspects a CONNECT tunnel to a declared MCP server with the local CA", async () => {
    const allowed = await mcpCall(1, "read_file");
    expect(JSON.parse(allowed.stdout)).toMatchObject({ id: 1, result: { method: "tools/call" } });
    const blocked = await mcpCall(2, "delete_everything");
    expect(JSON.parse(blocked.stdout)).toMatchObject({ id: 2, error: { code: -32001 } });
    expect(readFileSync(join(dir, "ca", "ca.crt"), "utf8")).toContain("BEGIN CERTIFICATE");
  });

  it("denies CONNECT (403 before any tunnel) and absolute-form requests to hosts the egress policy denies", async () => {
    const tunnel = await run("curl", [
      "-sS",
      "--max-time",
      "5",
      "-x",
      proxy,
      `https://${DENIED}:${originPort}/`,
    ]).catch((error: { code: number; stderr: string }) => error);
    expect((tunnel as { code: number }).code).not.toBe(0);
    expect((tunnel as { stderr: string }).stderr).toContain("403");
    const plain = await run("curl", ["-sS", "-i", "--max-time", "5", "-x", proxy, `http://${DENIED}/`]);
    expect(plain.stdout).toMatch(/^HTTP\/1.1 403/);
    expect(plain.stdout).toContain("x-toolwall-rule: local/laptop#egress.default");
    await new Promise((resolve) => setTimeout(resolve, 20));
    const denials = auditText
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((event) => event.type === "network_connection" && event.host === DENIED);
    expect(denials.map((event) => event.protocol).sort()).toEqual(["http", "unknown"]);
    expect(denials.every((event) => event.action === "deny")).toBe(true);
  });

  it("parses CONNECT authorities, IPv6 included", () => {
    expect(parseAuthority("api.example.com:443")).toEqual({ host: "api.example.com", port: 443 });
    expect(parseAuthority("[fd00::2]:8443")).toEqual({ host: "fd00::2", port: 8443 });
    expect(parseAuthority("api.example.com")).toBeUndefined();
    expect(parseAuthority("a b:1")).toBeUndefined();
  });
});
