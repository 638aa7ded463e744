/**
 * An MCP client in the agent pod reaching the MCP server's Service by name (Streamable HTTP). Prints
 * the tool names listed, the allowed call's result and the denied call's error as one JSON line.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const url = process.argv[2] ?? "http://everything.peers.svc.cluster.local:3001/mcp";
const client = new Client({ name: "cluster-agent", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const tools = (await client.listTools()).tools.map((t) => t.name);
const echo = await client.callTool({ name: "echo", arguments: { message: "hello" } });
const denied = await client.callTool({ name: "get-env", arguments: {} }).then(
  (result) => ({ result }),
  (error: { code?: number; message?: string }) => ({ code: error.code, message: error.message }),
);
await client.close();
process.stdout.write(`${JSON.stringify({ tools, echo: echo.content, denied })}\n`);
