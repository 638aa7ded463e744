/**
 * The Node pass-through floor: what any Node proxy pays before doing anything useful. A node:http
 * server forwards each request to one upstream over a keep-alive node:http agent and pipes both
 * bodies through untouched (no parsing, no policy), hop-by-hop headers aside.
 *
 *   node bench/floor-proxy.ts PORT UPSTREAM_URL
 *
 * Prints "listening" on stderr once it accepts connections.
 */
import { Agent, createServer, request } from "node:http";

const [portText, upstreamText] = process.argv.slice(2);
if (!portText || !upstreamText) throw new Error("usage: floor-proxy.ts PORT UPSTREAM_URL");
const upstream = new URL(upstreamText);
const agent = new Agent({ keepAlive: true, maxSockets: 1024, maxFreeSockets: 1024 });

const server = createServer((req, res) => {
  const headers = { ...req.headers, host: upstream.host };
  delete headers.connection;
  const forward = request(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers,
      agent,
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  forward.on("error", () => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  req.pipe(forward);
});
server.keepAliveTimeout = 60_000;
server.listen(Number(portText), "127.0.0.1", () => process.stderr.write("listening\n"));
process.once("SIGTERM", () => process.exit(0));
