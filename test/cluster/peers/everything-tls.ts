/**
 * server-everything (Streamable HTTP on port 3001, every address) and the same behind TLS on 3443, with the certificate in
 * /tls, so the agent reaches the MCP server's Service by name over HTTPS. Requests and streamed
 * responses are piped through unchanged.
 */
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { createServer } from "node:https";

process.env.PORT = "3001";
// The package has no types for this entry: a specifier TypeScript does not resolve.
const entry = "@modelcontextprotocol/server-everything/dist/transports/streamableHttp.js";
await import(entry);

createServer(
  { cert: readFileSync("/tls/tls.crt"), key: readFileSync("/tls/tls.key") },
  (incoming, outgoing) => {
    const upstream = request(
      {
        host: "127.0.0.1",
        port: 3001,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      },
    );
    upstream.on("error", () => outgoing.destroy());
    incoming.pipe(upstream);
  },
).listen(3443, () => process.stderr.write("server-everything over TLS on 3443\n"));
