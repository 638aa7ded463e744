import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  AGENT_UID,
  createTopology,
  describeNetns,
  INTERNET_V4,
  INTERNET_V6,
  nodeBinary,
  repoRoot,
  SIDECAR_UID,
  type Spawned,
  type Topology,
  toolwallBin,
} from "./harness.ts";

const probe = join(repoRoot, "test", "netns", "fixtures", "probe.ts");

describeNetns("toolwall init in a pod network namespace", () => {
  let topology: Topology;
  let reporter: Spawned;
  let initOutput = "";

  const agent = (...args: string[]) =>
    topology.run(topology.pod, nodeBinary, [probe, ...args], { uid: AGENT_UID });
  const sidecar = (...args: string[]) =>
    topology.run(topology.pod, nodeBinary, [probe, ...args], { uid: SIDECAR_UID });
  const json = (text: string) => JSON.parse(text.trim().split("\n").at(-1) ?? "null");

  beforeAll(async () => {
    topology = await createTopology();
    const servers = [
      topology.spawn(topology.internet, nodeBinary, [probe, "hello", "internet", "80", "8080"]),
      topology.spawn(topology.internet, nodeBinary, [probe, "udp-echo", "53"]),
      topology.spawn(topology.internet, nodeBinary, [probe, "udp-echo", "443"]),
      topology.spawn(topology.pod, nodeBinary, [probe, "hello", "pod-local", "7070"], { uid: AGENT_UID }),
    ];
    const init = await topology.run(topology.pod, nodeBinary, [toolwallBin, "init"]);
    initOutput = init.stdout + init.stderr;
    expect(init.code, initOutput).toBe(0);
    reporter = topology.spawn(topology.pod, nodeBinary, [probe, "report", "15001"], { uid: SIDECAR_UID });
    await Promise.all([...servers, reporter].map((s) => s.waitForLine(/ready/)));
  });

  afterAll(async () => {
    await topology?.destroy();
  });

  it("passes its own self-check for both address families", () => {
    expect(initOutput).toContain("self-check IPv4 redirected");
    expect(initOutput).toContain("self-check IPv6 redirected");
    expect(initOutput).toContain("self-check passed");
  });

  it("redirects the agent's IPv4 TCP to the proxy port with the original destination kept", async () => {
    const result = json((await agent("connect", INTERNET_V4, "80")).stdout);
    expect(JSON.parse(result.received)).toMatchObject({
      reporter: true,
      originalDestination: { family: 4, address: INTERNET_V4, port: 80 },
    });
  });

  it("redirects the agent's IPv6 TCP too", async () => {
    const result = json((await agent("connect", INTERNET_V6, "8080")).stdout);
    expect(JSON.parse(result.received)).toMatchObject({
      reporter: true,
      originalDestination: { family: 6, address: INTERNET_V6, port: 8080 },
    });
  });

  it("lets the sidecar uid reach the internet directly", async () => {
    for (const host of [INTERNET_V4, INTERNET_V6]) {
      const result = json((await sidecar("connect", host, "80")).stdout);
      expect(JSON.parse(result.received)).toMatchObject({ hello: "internet" });
    }
  });

  it("leaves loopback untouched", async () => {
    for (const host of ["127.0.0.1", "::1"]) {
      const result = json((await agent("connect", host, "7070")).stdout);
      expect(JSON.parse(result.received)).toMatchObject({ hello: "pod-local" });
    }
  });

  it("rejects UDP 443 at once but lets DNS through to the pod's resolvers", async () => {
    for (const host of [INTERNET_V4, INTERNET_V6]) {
      const quic = json((await agent("udp-send", host, "443")).stdout);
      expect(quic.outcome, `UDP 443 to ${host}`).toBe("error");
      const dns = json((await agent("udp-send", host, "53")).stdout);
      expect(dns, `UDP 53 to ${host}`).toEqual({ outcome: "reply", reply: "ping" });
    }
  });

  it("is idempotent: a second run keeps one jump per table", async () => {
    await reporter.stop();
    const again = await topology.run(topology.pod, nodeBinary, [toolwallBin, "init"]);
    expect(again.code, again.stderr).toBe(0);
    for (const save of ["iptables-save", "ip6tables-save"]) {
      const { stdout } = await topology.run(topology.pod, save, []);
      expect(stdout.match(/-A OUTPUT .*-j TOOLWALL_OUTPUT/g), save).toHaveLength(2);
      expect(stdout.match(/REDIRECT/g), save).toHaveLength(1);
    }
  });

  it("fails loudly when the redirect is missing", async () => {
    await topology.run(topology.pod, "iptables", ["-t", "nat", "-F", "TOOLWALL_OUTPUT"]);
    const verify = join(repoRoot, "test", "netns", "fixtures", "self-check.ts");
    const result = await topology.run(topology.pod, nodeBinary, [verify]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/did not reach the proxy port/);
  });
});
