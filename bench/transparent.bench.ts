/**
 * Transparent interception, direct vs through the transparent listener in the same run:
 * tunnelled TCP throughput and added connect latency, TLS-terminated request latency with a cached
 * leaf, leaf issuance. Peers run in child processes; everything stays on loopback.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { Agent, request as httpsRequest } from "node:https";
import { connect as netConnect } from "node:net";
import { createInterface } from "node:readline";
import { CertificateAuthority } from "../src/tls/ca.ts";
import { goal, percentile, table } from "./harness.ts";

const NAME = "bench.toolwall-test.example";
const children: ChildProcess[] = [];

async function startPeer(args: string[]): Promise<Record<string, string | number>> {
  const child = spawn(
    process.execPath,
    [new URL("fixtures/transparent-peer.ts", import.meta.url).pathname, ...args],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  children.push(child);
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) return JSON.parse(line);
  throw new Error("peer exited before reporting its ports");
}

function roundTrip(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = netConnect({ port, host: "127.0.0.1", noDelay: true }, () => socket.write("ping\n"));
    socket.once("data", () => {
      resolve(performance.now() - started);
      socket.destroy();
    });
    socket.once("error", reject);
  });
}

async function connectLatencies(port: number, count: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) samples.push(await roundTrip(port));
  return samples.sort((a, b) => a - b);
}

function throughput(port: number, bytes: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(256 * 1024, 0x61);
    chunk[0] = 0x73;
    const started = performance.now();
    const socket = netConnect({ port, host: "127.0.0.1" }, () => {
      let sent = 0;
      const pump = () => {
        while (sent < bytes) {
          sent += chunk.length;
          if (!socket.write(chunk)) return socket.once("drain", pump);
        }
        socket.end();
      };
      pump();
    });
    let answer = "";
    socket.on("data", (d) => {
      answer += d;
    });
    socket.on("end", () => {
      if (Number(answer) < bytes) reject(new Error(`sink received ${answer} of ${bytes} bytes`));
      resolve(bytes / 2 ** 20 / ((performance.now() - started) / 1000));
    });
    socket.on("error", reject);
  });
}

async function httpsLatencies(
  port: number,
  ca: string,
  count: number,
  keepAlive: boolean,
): Promise<number[]> {
  const agent = new Agent({ keepAlive, maxSockets: 1, ca, servername: NAME });
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      const req = httpsRequest(
        { host: "127.0.0.1", port, path: "/", agent, servername: NAME, headers: { host: NAME } },
        (res) => {
          res.resume();
          res.on("end", resolve);
        },
      );
      req.on("error", reject);
      req.end();
    });
    samples.push(performance.now() - started);
  }
  agent.destroy();
  return samples.sort((a, b) => a - b);
}

const ms = (n: number) => `${n.toFixed(3)} ms`;

try {
  const upstreamCa = await CertificateAuthority.create({ commonName: "bench upstream CA" });
  const upstreamLeaf = await upstreamCa.leafFor(NAME);
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  const upstream = await startPeer(["upstream", b64(upstreamLeaf.certificatePem), b64(upstreamLeaf.keyPem)]);
  const sidecar = await startPeer([
    "sidecar",
    String(upstream.tcp),
    String(upstream.https),
    b64(upstreamCa.certificatePem),
  ]);
  const podCa = Buffer.from(String(sidecar.ca), "base64").toString();

  await connectLatencies(Number(upstream.tcp), 100);
  await connectLatencies(Number(sidecar.tcp), 100);
  const directConnect = await connectLatencies(Number(upstream.tcp), 500);
  const tunnelConnect = await connectLatencies(Number(sidecar.tcp), 500);
  const addedConnect = percentile(tunnelConnect, 50) - percentile(directConnect, 50);

  const volume = 512 * 2 ** 20;
  await throughput(Number(upstream.tcp), 64 * 2 ** 20);
  await throughput(Number(sidecar.tcp), 64 * 2 ** 20);
  const directRates: number[] = [];
  const tunnelRates: number[] = [];
  for (let round = 0; round < 3; round++) {
    directRates.push(await throughput(Number(upstream.tcp), volume));
    tunnelRates.push(await throughput(Number(sidecar.tcp), volume));
  }
  const directRate = directRates.sort((a, b) => a - b)[1]!;
  const tunnelRate = tunnelRates.sort((a, b) => a - b)[1]!;

  await httpsLatencies(Number(upstream.https), upstreamCa.certificatePem, 100, true);
  await httpsLatencies(Number(sidecar.https), podCa, 100, true);
  const directKeepAlive = await httpsLatencies(Number(upstream.https), upstreamCa.certificatePem, 1000, true);
  const inspectedKeepAlive = await httpsLatencies(Number(sidecar.https), podCa, 1000, true);
  const directFresh = await httpsLatencies(Number(upstream.https), upstreamCa.certificatePem, 200, false);
  const inspectedFresh = await httpsLatencies(Number(sidecar.https), podCa, 200, false);
  const addedRequest = percentile(inspectedKeepAlive, 50) - percentile(directKeepAlive, 50);

  const issuer = await CertificateAuthority.create({ leafCacheSize: 10_000 });
  for (let i = 0; i < 50; i++) await issuer.leafFor(`warm-${i}.example`);
  const issuance: number[] = [];
  for (let i = 0; i < 500; i++) {
    const started = performance.now();
    await issuer.leafFor(`host-${i}.bench.example`);
    issuance.push(performance.now() - started);
  }
  issuance.sort((a, b) => a - b);
  const cachedStarted = performance.now();
  for (let i = 0; i < 10_000; i++) await issuer.leafFor(`host-${i % 500}.bench.example`);
  const cachedUs = ((performance.now() - cachedStarted) / 10_000) * 1000;

  console.log("## Transparent interception\n");
  console.log(
    table(
      ["case", "direct", "through the listener", "added / ratio", "goal", ""],
      [
        [
          "TCP connect + first echo, p50",
          ms(percentile(directConnect, 50)),
          ms(percentile(tunnelConnect, 50)),
          ms(addedConnect),
          "≤ 0.3 ms added",
          goal(addedConnect <= 0.3),
        ],
        [
          "TCP connect + first echo, p99",
          ms(percentile(directConnect, 99)),
          ms(percentile(tunnelConnect, 99)),
          ms(percentile(tunnelConnect, 99) - percentile(directConnect, 99)),
          "",
          "",
        ],
        [
          "tunnelled throughput (512 MiB, median of 3)",
          `${directRate.toFixed(0)} MiB/s`,
          `${tunnelRate.toFixed(0)} MiB/s`,
          `${((tunnelRate / directRate) * 100).toFixed(0)} %`,
          "≥ 80 %",
          goal(tunnelRate / directRate >= 0.8),
        ],
        [
          "HTTPS request, keep-alive, cached leaf, p50",
          ms(percentile(directKeepAlive, 50)),
          ms(percentile(inspectedKeepAlive, 50)),
          ms(addedRequest),
          "≤ 1.5 ms added",
          goal(addedRequest <= 1.5),
        ],
        [
          "HTTPS request, keep-alive, p99",
          ms(percentile(directKeepAlive, 99)),
          ms(percentile(inspectedKeepAlive, 99)),
          ms(percentile(inspectedKeepAlive, 99) - percentile(directKeepAlive, 99)),
          "",
          "",
        ],
        [
          "HTTPS request, new connection each, p50",
          ms(percentile(directFresh, 50)),
          ms(percentile(inspectedFresh, 50)),
          ms(percentile(inspectedFresh, 50) - percentile(directFresh, 50)),
          "",
          "",
        ],
        [
          "leaf issuance (new name), p50 / p99",
          "",
          `${ms(percentile(issuance, 50))} / ${ms(percentile(issuance, 99))}`,
          "",
          "≤ 5 ms",
          goal(percentile(issuance, 50) <= 5),
        ],
        ["leaf from cache", "", `${cachedUs.toFixed(2)} µs`, "", "", ""],
      ],
    ),
  );
} finally {
  for (const child of children) child.kill();
}
