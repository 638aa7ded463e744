/**
 * `toolwall proxy` as a supervisor sees it: a taken admin port is a startup failure (exit code, one
 * clear line, no stack), and SIGTERM ends the process within the documented 30 s drain even while a
 * stream the upstream never ends is open.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

function policyFile(mcpUrl: string): string {
  const file = join(tmpdir(), `toolwall-lifecycle-${process.pid}.yaml`);
  writeFileSync(
    file,
    `apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: { name: lifecycle, namespace: agents }
spec:
  servers: [{ name: forever, transport: StreamableHTTP, url: "${mcpUrl}" }]
`,
  );
  return file;
}

/** Every proxy started, so a failed test leaves no process behind. */
const children: ChildProcess[] = [];

function startProxy(file: string, admin: string): { child: ChildProcess; output: () => string } {
  const child = spawn(
    process.execPath,
    ["bin/toolwall.js", "proxy", "-f", file, "--listen", "127.0.0.1:0", "--admin", admin],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  children.push(child);
  let output = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  return { child, output: () => output };
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });
}

describe("toolwall proxy lifecycle", () => {
  let upstream: Server;
  let file: string;

  beforeAll(async () => {
    // An MCP server whose GET stream never ends.
    upstream = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(": open\n\n");
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    file = policyFile(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`);
  });

  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    upstream?.closeAllConnections();
    upstream?.close();
  });

  it("fails to start, with a clear message, when the admin port is taken", async () => {
    const taken = `127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const { child, output } = startProxy(file, taken);
    const started = Date.now();
    const code = await exited(child);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(code).not.toBe(0);
    expect(output()).toContain(`cannot bind the admin port ${taken}: EADDRINUSE`);
    expect(output()).not.toMatch(/\n\s+at /);
  });

  it("exits within the 30 s drain after SIGTERM while a stream stays open", { timeout: 60_000 }, async () => {
    const { child, output } = startProxy(file, "127.0.0.1:0");
    const deadline = Date.now() + 15_000;
    while (!/listening on http:\/\/\S+:\d+/.test(output()) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const url = new URL(/listening on (http:\/\/\S+:\d+)/.exec(output())![1]!);
    const streaming = new Promise<void>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: "/mcp/forever",
          headers: { accept: "text/event-stream" },
        },
        (res) => {
          res.once("data", () => resolve());
          res.on("error", () => {});
        },
      );
      req.on("error", () => {});
      req.once("error", reject);
      req.end();
    });
    await streaming;
    const stopped = Date.now();
    child.kill("SIGTERM");
    const code = await exited(child);
    const seconds = (Date.now() - stopped) / 1000;
    expect(code).toBe(0);
    expect(seconds).toBeLessThan(30);
  });
});
