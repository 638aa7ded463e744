import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

/** The repository root, where bin/toolwall.js lives. */
export const root = join(import.meta.dirname, "..", "..");

/** Runs `toolwall ARGS` to completion. */
export function toolwall(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(root, "bin", "toolwall.js"), ...args],
      { cwd: root, env },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

export interface RunningProxy {
  url: string;
  /** Everything the proxy printed on stdout (the audit stream) so far. */
  stdout(): string;
  close(): Promise<void>;
}

/** Starts `toolwall proxy -f POLICY` on loopback ports and waits until it listens. */
export async function startToolwallProxy(
  policy: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunningProxy> {
  const child: ChildProcess = spawn(
    process.execPath,
    ["bin/toolwall.js", "proxy", "-f", policy, "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0"],
    { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const listening = /listening on (http:\/\/\S+:\d+)/;
  const deadline = Date.now() + 20_000;
  while (!listening.test(stderr)) {
    if (Date.now() > deadline || child.exitCode !== null)
      throw new Error(`toolwall proxy did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    url: listening.exec(stderr)![1]!,
    stdout: () => stdout,
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** A stateless SDK MCP server on loopback offering tools with these names and descriptions. */
export async function startToolServer(
  name: string,
  tools: readonly { name: string; description: string }[],
): Promise<{ url: string; close(): Promise<void> }> {
  const http: Server = createServer(async (req, res) => {
    const server = new McpServer({ name, version: "1.0.0" });
    for (const tool of tools)
      server.registerTool(tool.name, { description: tool.description }, async () => ({
        content: [{ type: "text", text: "done" }],
      }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    async close() {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
