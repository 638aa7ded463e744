/**
 * Egress probes from the agent container: a TCP connection to an undeclared destination, a UDP
 * datagram to an echo peer, and an IPv6 connection. Prints what each achieved as one JSON line.
 * `probe.ts loop HOST SECONDS` keeps connecting to HOST:8080 and counts the outcomes (used while the
 * sidecar restarts: nothing may escape).
 */
import { createSocket } from "node:dgram";
import { connect } from "node:net";

function tcp(host: string, port: number, family?: 4 | 6): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, ...(family ? { family } : {}), timeout: 4000 });
    socket.on("connect", () => {
      socket.write("GET / HTTP/1.0\r\nHost: probe\r\n\r\n");
    });
    let data = "";
    socket.on("data", (chunk) => {
      data += chunk.toString();
    });
    socket.on("end", () => resolve(data ? `answered: ${data}` : "closed without answer"));
    socket.on("timeout", () => {
      socket.destroy();
      resolve(data ? `answered: ${data}` : "timeout");
    });
    socket.on("error", (error: NodeJS.ErrnoException) =>
      resolve(data ? `answered: ${data}` : `error ${error.code}`),
    );
  });
}

function udp(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = createSocket("udp4");
    const timer = setTimeout(() => {
      socket.close();
      resolve("no reply");
    }, 3000);
    socket.on("message", (message) => {
      clearTimeout(timer);
      socket.close();
      resolve(`reply: ${message.toString()}`);
    });
    socket.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      socket.close();
      resolve(`error ${error.code}`);
    });
    socket.send("ping", port, host);
  });
}

if (process.argv[2] === "loop") {
  const host = process.argv[3]!;
  const until = Date.now() + Number(process.argv[4] ?? 10) * 1000;
  const outcomes: Record<string, number> = {};
  while (Date.now() < until) {
    const outcome = await tcp(host, 8080);
    const key = outcome.includes("escaped") ? "escaped" : outcome.split(":")[0]!;
    outcomes[key] = (outcomes[key] ?? 0) + 1;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  process.stdout.write(`${JSON.stringify(outcomes)}\n`);
  process.exit(0);
}

const [undeclaredHost, udpHost, ipv6Host] = process.argv.slice(2);
const result = {
  undeclared: await tcp(undeclaredHost!, 8080),
  udp: await udp(udpHost!, 5353),
  ipv6: await tcp(ipv6Host ?? "2001:db8::1", 80, 6),
};
process.stdout.write(`${JSON.stringify(result)}\n`);
