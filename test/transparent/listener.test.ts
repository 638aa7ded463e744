/**
 * The transparent listener on loopback. Only the original destination is supplied by the test (on
 * loopback nothing is REDIRECTed); the namespace suite covers the same paths with real iptables.
 */

import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { connect as http2Connect } from "node:http2";
import { createServer as createNetServer, connect as netConnect, type Server } from "node:net";
import { createSecureContext, createServer as createTlsServer, connect as tlsConnect } from "node:tls";
import { Counter, Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NetworkConnectionEvent } from "../../src/dataplane/audit.ts";
import { EgressPolicy } from "../../src/dataplane/egress.ts";
import { TransparentListener, type TransparentListenerOptions } from "../../src/dataplane/listener.ts";
import { Resolver } from "../../src/net/resolver.ts";
import { CertificateAuthority } from "../../src/tls/ca.ts";
import { forwardingHandler } from "../helpers/forwarding-handler.ts";
import { policyDocument } from "../helpers/policy-document.ts";

const INSPECTED = "mcp.toolwall-test.example";
const TUNNELLED = "files.toolwall-test.example";
const SPOOFED = "elsewhere.toolwall-test.example";
const DENIED = "paste.bin.example";

/** A listener on a free loopback port, as pod `agents/agent-0`, whose connections all "went" to `upstreamPort`. */
async function loopbackListener(
  options: Pick<TransparentListenerOptions, "egress" | "ca" | "resolver" | "inspect" | "audit"> &
    Partial<TransparentListenerOptions>,
  upstreamPort: number,
): Promise<{ listener: TransparentListener; port: number }> {
  const listener = new TransparentListener({
    host: "127.0.0.1",
    port: 0,
    identity: { namespace: "agents", pod: "agent-0" },
    originalDestination: () => ({ family: 4, address: "127.0.0.1", port: upstreamPort }),
    peekTimeoutMs: 300,
    ...options,
  });
  return { listener, port: (await listener.listen()).port };
}

describe("transparent listener", () => {
  let podCa: CertificateAuthority;
  let upstreamCa: CertificateAuthority;
  let upstream: Server;
  let upstreamPort: number;
  let listener: TransparentListener;
  let listenerPort: number;
  const events: NetworkConnectionEvent[] = [];
  const registry = new Registry();
  const connections = new Counter({
    name: "toolwall_connections_total",
    help: "Redirected connections by egress verdict",
    labelNames: ["verdict"] as const,
    registers: [registry],
  });

  const policy = policyDocument(
    {
      egress: {
        default: "Allow",
        rules: [{ name: "no-paste", action: "Deny", hosts: ["*.bin.example"] }],
        inspect: [INSPECTED],
      },
    },
    { namespace: "agents", name: "egress" },
  );

  beforeAll(async () => {
    podCa = await CertificateAuthority.create();
    upstreamCa = await CertificateAuthority.create({ commonName: "upstream test CA" });
    const names = [INSPECTED, TUNNELLED];
    const leaves = await Promise.all(names.map((n) => upstreamCa.leafFor(n)));
    upstream = createTlsServer(
      {
        SNICallback: (name, callback) => {
          const leaf = leaves.find((l) => l.name === name) ?? leaves[0]!;
          callback(null, createSecureContext({ cert: leaf.certificatePem, key: leaf.keyPem }));
        },
        cert: leaves[0]!.certificatePem,
        key: leaves[0]!.keyPem,
      },
      (socket) => {
        socket.on("data", (data) => {
          const text = data.toString();
          if (text.startsWith("GET ") || text.startsWith("POST ")) {
            const body = JSON.stringify({ upstream: socket.servername, line: text.split("\r\n")[0] });
            socket.end(
              `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
            );
          } else {
            socket.write(data);
          }
        });
      },
    );
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    upstreamPort = (upstream.address() as { port: number }).port;
    const resolver = new Resolver([
      `${INSPECTED}=127.0.0.1`,
      `${TUNNELLED}=127.0.0.1`,
      `${SPOOFED}=127.0.0.2`,
    ]);
    ({ listener, port: listenerPort } = await loopbackListener(
      {
        egress: () => new EgressPolicy([policy]),
        ca: podCa,
        resolver,
        inspect: forwardingHandler({ resolver, extraCa: [upstreamCa.certificatePem] }),
        audit: { emit: (event) => events.push(event as NetworkConnectionEvent) },
        connections,
      },
      upstreamPort,
    ));
  });

  afterAll(async () => {
    await listener?.close();
    upstream?.close();
  });

  function tlsRequest(
    servername: string,
    ca: string,
  ): Promise<{ body: string; issuer: string } | { error: string }> {
    return new Promise((resolve) => {
      const socket = tlsConnect({
        host: "127.0.0.1",
        port: listenerPort,
        servername,
        ca,
        ALPNProtocols: ["http/1.1"],
      });
      let body = "";
      let issuer = "";
      socket.on("secureConnect", () => {
        issuer = String(socket.getPeerCertificate().issuer?.CN ?? "");
        socket.write(`GET /probe HTTP/1.1\r\nHost: ${servername}\r\nconnection: close\r\n\r\n`);
      });
      socket.on("data", (chunk) => {
        body += chunk;
      });
      socket.on("error", (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
      socket.on("close", () => resolve(issuer ? { body, issuer } : { error: "closed before the handshake" }));
    });
  }

  it("terminates TLS for an inspected host with a pod-CA leaf and forwards upstream by name", async () => {
    const result = await tlsRequest(INSPECTED, podCa.certificatePem);
    expect(result).toMatchObject({ issuer: "Toolwall pod CA" });
    const body = (result as { body: string }).body;
    expect(body).toContain("200 OK");
    expect(body).toContain(`"upstream":"${INSPECTED}"`);
    expect(events.at(-1)).toMatchObject({
      type: "network_connection",
      verdict: "inspect",
      host: INSPECTED,
      action: "allow",
    });
  });

  it("negotiates HTTP/2 by ALPN on an inspected connection", async () => {
    const session = http2Connect(`https://${INSPECTED}:${listenerPort}`, {
      ca: podCa.certificatePem,
      lookup: new Resolver([`${INSPECTED}=127.0.0.1`]).lookupFunction() as never,
    });
    const body = await new Promise<string>((resolve, reject) => {
      const stream = session.request({ ":path": "/h2" });
      let data = "";
      stream.on("data", (c) => {
        data += c;
      });
      stream.on("end", () => resolve(data));
      stream.on("error", reject);
    });
    session.close();
    expect(JSON.parse(body)).toMatchObject({ upstream: INSPECTED, line: "GET /h2 HTTP/1.1" });
  });

  it("tunnels an allowed host untouched: the client sees the upstream's own certificate", async () => {
    const result = await tlsRequest(TUNNELLED, upstreamCa.certificatePem);
    expect(result).toMatchObject({ issuer: "upstream test CA" });
    expect(events.at(-1)).toMatchObject({
      verdict: "tunnel",
      host: TUNNELLED,
      destination: `127.0.0.1:${upstreamPort}`,
    });
  });

  it("refuses a tunnel whose SNI resolves elsewhere than the original destination", async () => {
    const result = await tlsRequest(SPOOFED, upstreamCa.certificatePem);
    expect(result).toHaveProperty("error");
    expect(events.at(-1)).toMatchObject({
      verdict: "deny",
      category: "invalid",
      rule: "builtin#name-address-mismatch",
    });
  });

  it("denies by egress rule, answering plain HTTP with a 403 that names the rule", async () => {
    const reply = await new Promise<string>((resolve) => {
      const socket = netConnect(listenerPort, "127.0.0.1", () =>
        socket.write(`GET / HTTP/1.1\r\nHost: ${DENIED}\r\n\r\n`),
      );
      let data = "";
      socket.on("data", (c) => {
        data += c;
      });
      socket.on("close", () => resolve(data));
    });
    expect(reply).toMatch(/^HTTP\/1.1 403 Forbidden/);
    expect(reply).toContain("x-toolwall-rule: agents/egress#egress.rules[no-paste]");
    expect(events.at(-1)).toMatchObject({ action: "deny", verdict: "deny", host: DENIED, protocol: "http" });
  });

  it("classifies a client that sends nothing after the peek timeout, by address only", async () => {
    const received = await new Promise<string>((resolve) => {
      const socket = netConnect(listenerPort, "127.0.0.1");
      socket.on("close", () => resolve("closed"));
      setTimeout(() => {
        socket.destroy();
      }, 600);
    });
    expect(received).toBe("closed");
    expect(events.at(-1)).toMatchObject({ verdict: "tunnel", host: null, protocol: "unknown" });
  });

  it("denies bytes that start like a TLS handshake but are no valid ClientHello", async () => {
    await new Promise<void>((resolve) => {
      const socket = netConnect(listenerPort, "127.0.0.1", () =>
        socket.write(Buffer.from([22, 3, 1, 0, 8, 1, 0, 0, 4, 3, 3, 0, 0])),
      );
      socket.on("close", () => resolve());
      socket.on("error", () => {});
    });
    expect(events.at(-1)).toMatchObject({
      verdict: "deny",
      rule: "builtin#malformed-client-hello",
      protocol: "tls",
    });
  });

  it("counts connections by verdict in toolwall_connections_total", async () => {
    const metrics = await registry.metrics();
    expect(metrics).toMatch(/toolwall_connections_total\{verdict="inspect"\} [1-9]/);
    expect(metrics).toMatch(/toolwall_connections_total\{verdict="deny"\} [1-9]/);
  });
});

describe("transparent listener without an original destination", () => {
  it("denies a connection that reached the listener directly", async () => {
    const events: NetworkConnectionEvent[] = [];
    const resolver = new Resolver();
    const listener = new TransparentListener({
      host: "127.0.0.1",
      port: 0,
      egress: () => new EgressPolicy([]),
      ca: await CertificateAuthority.create(),
      resolver,
      inspect: () => {},
      audit: { emit: (event) => events.push(event as NetworkConnectionEvent) },
      identity: { namespace: "agents", pod: "agent-0" },
    });
    const { port } = await listener.listen();
    const server: Server = createNetServer();
    await new Promise<void>((resolve) => {
      const socket = netConnect(port, "127.0.0.1");
      socket.on("close", () => resolve());
      socket.on("error", () => {});
    });
    server.close();
    await listener.close();
    expect(events[0]).toMatchObject({ verdict: "deny", rule: "builtin#no-original-destination" });
  });
});

describe("transparent listener, plain-HTTP inspected host", () => {
  const PLAIN = "everything.toolwall-test.example";
  let upstream: HttpServer;
  let listener: TransparentListener;
  let listenerPort: number;
  const events: NetworkConnectionEvent[] = [];

  beforeAll(async () => {
    upstream = createHttpServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => {
        body += chunk;
      });
      request.on("end", () => response.end(JSON.stringify({ host: request.headers.host, body })));
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    const upstreamPort = (upstream.address() as { port: number }).port;
    const resolver = new Resolver([`${PLAIN}=127.0.0.1`]);
    ({ listener, port: listenerPort } = await loopbackListener(
      {
        egress: () =>
          new EgressPolicy([
            policyDocument({
              servers: [
                {
                  name: "everything",
                  transport: "StreamableHTTP",
                  url: `http://${PLAIN}:${upstreamPort}/mcp`,
                },
              ],
              egress: { default: "Deny" },
            }),
          ]),
        ca: await CertificateAuthority.create(),
        resolver,
        inspect: forwardingHandler({ resolver }),
        audit: { emit: (event) => events.push(event as NetworkConnectionEvent) },
      },
      upstreamPort,
    ));
  });

  afterAll(async () => {
    await listener?.close();
    upstream?.close();
  });

  /** Sends the request head, then each later part after a pause, and reads the whole answer. */
  function exchange(head: string, ...later: string[]): Promise<string> {
    return new Promise((resolve) => {
      const socket = netConnect(listenerPort, "127.0.0.1", async () => {
        socket.write(head);
        for (const part of later) {
          await new Promise((wait) => setTimeout(wait, 50));
          socket.write(part);
        }
      });
      let data = "";
      socket.on("data", (chunk) => {
        data += chunk;
      });
      socket.setTimeout(3000, () => socket.destroy());
      socket.on("close", () => resolve(data));
    });
  }

  // The peek leaves the socket paused with the request head buffered in it; the HTTP server that
  // takes the socket over reads the buffered bytes only once the socket flows again (the real
  // node's plain-HTTP MCP service hung here).
  it("forwards a request whose head and body were peeked together", async () => {
    const body = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
    const answer = await exchange(
      `POST /mcp HTTP/1.1\r\nHost: ${PLAIN}:3001\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
    );
    expect(answer).toMatch(/^HTTP\/1.1 200 OK/);
    expect(answer).toContain(`"body":${JSON.stringify(body)}`);
    expect(events.at(-1)).toMatchObject({ verdict: "inspect", category: "mcp", server: "everything" });
  });

  it("forwards a request whose body arrives after the peek, and a second request on the same connection", async () => {
    const body = '{"jsonrpc":"2.0","id":2,"method":"ping"}';
    const answer = await exchange(
      `POST /mcp HTTP/1.1\r\nHost: ${PLAIN}:3001\r\ncontent-length: ${body.length}\r\n\r\n`,
      body,
      `GET /mcp HTTP/1.1\r\nHost: ${PLAIN}:3001\r\nconnection: close\r\n\r\n`,
    );
    expect(answer.match(/HTTP\/1.1 200 OK/g)).toHaveLength(2);
    expect(answer).toContain(`"body":${JSON.stringify(body)}`);
  });
});
