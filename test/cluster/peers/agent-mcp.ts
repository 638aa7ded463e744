/**
 * An MCP client in the agent pod reaching the MCP server's Service by name (Streamable HTTP). Prints
 * the tool names listed, the allowed call's result and the denied call's error as one JSON line.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const url = process.argv[2] ?? "https://everything.peers.svc.cluster.local/mcp";
const step = (what: string) => process.stderr.write(`agent-mcp: ${what}\n`);
// A hang must end with what was reached, not with the test's timeout.
setTimeout(() => {
  step("timed out after 40 s");
  process.exit(3);
}, 40_000).unref();
const client = new Client({ name: "cluster-agent", version: "1.0.0" });
step(`connecting to ${url}`);
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
step("initialized");
const tools = (await client.listTools()).tools.map((t) => t.name);
step(`listed ${tools.length} tools`);
const echo = await client.callTool({ name: "echo", arguments: { message: "hello" } });
step("echo called");
const denied = await client.callTool({ name: "get-env", arguments: {} }).then(
  (result) => ({ result }),
  (error: { code?: number; message?: string }) => ({ code: error.code, message: error.message }),
);
await client.close();
process.stdout.write(`${JSON.stringify({ tools, echo: echo.content, denied })}\n`);
