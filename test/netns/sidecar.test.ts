/**
 * The whole in-pod path with real iptables: `toolwall init` in the pod namespace, `toolwall sidecar`
 * as uid 1337, agents (curl, python3, node) as uid 1000, TLS origins in the "internet" namespace.
 */
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CertificateAuthority } from "../../src/tls/ca.ts";
import { eventually } from "../helpers/eventually.ts";
import {
  AGENT_UID,
  createTopology,
  describeNetns,
  INTERNET_V4,
  INTERNET_V4_OTHER,
  INTERNET_V6,
  nodeBinary,
  repoRoot,
  SIDECAR_UID,
  type Spawned,
  type Topology,
  toolwallBin,
} from "./harness.ts";

const MCP = "mcp.toolwall-test.example";
const FILES = "files.toolwall-test.example";
const MIRROR = "mirror.toolwall-test.example";
const UNDECLARED = "undeclared.toolwall-test.example";
const ANTHROPIC = "api.anthropic.com";
/** An in-cluster MCP service reached over plain HTTP on its own port, as `everything.mcp.svc:3001`. */
const PLAIN_MCP = "everything.toolwall-test.example";

const POLICY = `apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: {name: netns, namespace: agents}
spec:
  servers:
    - {name: tools, transport: StreamableHTTP, url: "https://${MCP}/mcp"}
    - {name: everything, transport: StreamableHTTP, url: "http://${PLAIN_MCP}:3001/mcp"}
  toolPolicy:
    default: Allow
    rules:
      - {action: Deny, servers: ["*"], tools: ["delete_*"], reason: destructive tools are blocked}
      - {action: Deny, tools: ["drop_database"], reason: no dropping databases}
      - {action: Deny, servers: ["everything"], tools: ["drop_table"], reason: no dropping tables}
  egress:
    default: Deny
    rules:
      - {name: files, action: Allow, hosts: ["${FILES}", "${MIRROR}"]}
`;

describeNetns("toolwall sidecar behind toolwall init", () => {
  let topology: Topology;
  let sidecar: Spawned;
  let mcpService: Spawned;
  let dir: string;
  let caDir: string;
  let testCa: string;

  const curl = (args: string[], options: { uid?: number; env?: Record<string, string> } = {}) =>
    topology.run(topology.pod, "curl", ["-sS", "--max-time", "5", ...args], { uid: AGENT_UID, ...options });
  const events = () =>
    sidecar
      .output()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((event) => event.type === "network_connection");
  const lastEventFor = (host: string) => events().findLast((event) => event.host === host);
  /**
   * Asserts the last audit event for `host` has `expected`'s fields, once the sidecar has written it:
   * it audits a connection when it closes, which the agent's curl may see first on a loaded machine.
   */
  const expectEvent = async (host: string, expected: Record<string, unknown>) => {
    const matches = () => {
      const event = lastEventFor(host);
      return event !== undefined && Object.entries(expected).every(([key, value]) => event[key] === value);
    };
    await eventually(`an audit event for ${host}`, async () => (matches() ? true : undefined), 5_000).catch(
      () => undefined,
    );
    expect(lastEventFor(host)).toMatchObject(expected);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "toolwall-netns-"));
    chmodSync(dir, 0o755);
    const ca = await CertificateAuthority.create({ commonName: "internet test CA" });
    testCa = join(dir, "test-ca.pem");
    writeFileSync(testCa, ca.certificatePem);
    mkdirSync(join(dir, "certs"));
    for (const name of [MCP, FILES, MIRROR, UNDECLARED, ANTHROPIC]) {
      const leaf = await ca.leafFor(name);
      writeFileSync(join(dir, "certs", `${name}.crt`), leaf.certificatePem);
      writeFileSync(join(dir, "certs", `${name}.key`), leaf.keyPem, { mode: 0o600 });
    }
    writeFileSync(join(dir, "policy.yaml"), POLICY);
    caDir = join(dir, "ca");
    mkdirSync(caDir);
    chownSync(caDir, SIDECAR_UID, SIDECAR_UID);

    topology = await createTopology({
      [MCP]: [INTERNET_V4, INTERNET_V6],
      [PLAIN_MCP]: [INTERNET_V4],
      [FILES]: [INTERNET_V4, INTERNET_V6],
      [UNDECLARED]: [INTERNET_V4, INTERNET_V6],
      [MIRROR]: [INTERNET_V4_OTHER],
      // Only inside the test's own namespaces: the "internet" namespace plays the provider.
      [ANTHROPIC]: [INTERNET_V4],
    });
    const origin = topology.spawn(topology.internet, nodeBinary, [
      join(repoRoot, "test", "netns", "fixtures", "origin.ts"),
      join(dir, "certs"),
      MCP,
      FILES,
      MIRROR,
      UNDECLARED,
      ANTHROPIC,
    ]);
    mcpService = topology.spawn(topology.internet, nodeBinary, [
      join(repoRoot, "test", "netns", "fixtures", "mcp-service.ts"),
      "3001",
    ]);
    const init = await topology.run(topology.pod, nodeBinary, [toolwallBin, "init"]);
    expect(init.code, init.stderr).toBe(0);
    sidecar = topology.spawn(
      topology.pod,
      nodeBinary,
      [
        toolwallBin,
        "sidecar",
        "--policy-file",
        join(dir, "policy.yaml"),
        "--ca-dir",
        caDir,
        "--extra-ca",
        testCa,
      ],
      { uid: SIDECAR_UID, env: { POD_NAMESPACE: "agents", POD_NAME: "agent-0" } },
    );
    await Promise.all([
      origin.waitForLine(/ready/),
      mcpService.waitForLine(/ready/),
      sidecar.waitForLine(/toolwall sidecar: ready/),
    ]);
  });

  afterAll(async () => {
    await topology?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("denies the agent's connection to an undeclared host and audits it", async () => {
    const tls = await curl(["-4", "--cacert", testCa, `https://${UNDECLARED}/`]);
    expect(tls.code).not.toBe(0);
    await expectEvent(UNDECLARED, {
      type: "network_connection",
      action: "deny",
      verdict: "deny",
      rule: "agents/netns#egress.default",
      namespace: "agents",
      pod: "agent-0",
      destination: `${INTERNET_V4}:443`,
    });
    const http = await curl(["-i", `http://${UNDECLARED}/`]);
    expect(http.stdout).toMatch(/^HTTP\/1.1 403 Forbidden/);
  });

  it("tunnels an allowed host untouched (the agent sees the origin's own certificate), over IPv6 too", async () => {
    const v4 = await curl(["-4", "--cacert", testCa, `https://${FILES}/hello`]);
    expect(v4.stderr).toBe("");
    expect(JSON.parse(v4.stdout)).toMatchObject({ origin: FILES, path: "/hello" });
    await expectEvent(FILES, { verdict: "tunnel", destination: `${INTERNET_V4}:443` });
    const v6 = await curl(["-6", "--cacert", testCa, `https://${FILES}/hello6`]);
    expect(JSON.parse(v6.stdout)).toMatchObject({ origin: FILES, path: "/hello6" });
    await expectEvent(FILES, { verdict: "tunnel", destination: `[${INTERNET_V6}]:443` });
  });

  it("refuses a tunnel whose SNI names a host that resolves elsewhere", async () => {
    const spoofed = await curl([
      "--cacert",
      testCa,
      "--resolve",
      `${MIRROR}:443:${INTERNET_V4}`,
      `https://${MIRROR}/`,
    ]);
    expect(spoofed.code).not.toBe(0);
    await expectEvent(MIRROR, { verdict: "deny", rule: "builtin#name-address-mismatch" });
    const genuine = await curl(["--cacert", testCa, `https://${MIRROR}/`]);
    expect(JSON.parse(genuine.stdout)).toMatchObject({ origin: MIRROR });
  });

  it("lets the sidecar's own uid reach the internet directly", async () => {
    const before = events().length;
    const direct = await curl(["--cacert", testCa, `https://${UNDECLARED}/direct`], { uid: SIDECAR_UID });
    expect(JSON.parse(direct.stdout)).toMatchObject({ origin: UNDECLARED, path: "/direct" });
    expect(events().length).toBe(before);
  });

  it("rejects the agent's UDP 443 (QUIC) at once", async () => {
    const probe = join(repoRoot, "test", "netns", "fixtures", "probe.ts");
    const result = await topology.run(topology.pod, nodeBinary, [probe, "udp-send", INTERNET_V4, "443"], {
      uid: AGENT_UID,
    });
    expect(JSON.parse(result.stdout.trim())).toMatchObject({ outcome: "error" });
  });

  it("lets curl with the merged bundle reach the declared MCP server and denies a blocked tool", async () => {
    const env = { CURL_CA_BUNDLE: join(caDir, "ca-bundle.pem") };
    const post = (body: object) =>
      curl(
        [
          "-H",
          "content-type: application/json",
          "-H",
          "accept: application/json, text/event-stream",
          "-d",
          JSON.stringify(body),
          `https://${MCP}/mcp`,
        ],
        { env },
      );
    const allowed = await post({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "read_file", arguments: {} },
    });
    expect(allowed.stderr).toBe("");
    expect(JSON.parse(allowed.stdout)).toMatchObject({
      id: 1,
      result: { origin: MCP, method: "tools/call" },
    });
    await expectEvent(MCP, { verdict: "inspect", category: "mcp", server: "tools" });
    const blocked = await post({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "delete_repo", arguments: {} },
    });
    expect(JSON.parse(blocked.stdout)).toMatchObject({ id: 2, error: { code: -32001 } });
  });

  it("judges a plain-HTTP MCP service on its own port for the official MCP SDK client", async () => {
    const agent = join(repoRoot, "test", "netns", "fixtures", "mcp-agent.ts");
    const result = await topology.run(
      topology.pod,
      nodeBinary,
      [agent, `http://${PLAIN_MCP}:3001/mcp`, 'weather={"city":"Paris"}', 'drop_table={"table":"users"}'],
      { uid: AGENT_UID, timeoutMs: 10_000 },
    );
    expect(result.stderr).toBe("");
    const seen = JSON.parse(result.stdout) as { tools: string[]; calls: Record<string, unknown> };
    expect(seen.tools).toContain("weather");
    expect(seen.tools).not.toContain("drop_table");
    expect(seen.calls.weather).toMatchObject({ content: [{ type: "text", text: "Sunny in Paris" }] });
    expect(seen.calls.drop_table).toMatchObject({ error: { code: -32001 } });
    // The service's log line travels its own pipe: it can arrive after the agent has its answer.
    await eventually(
      "the MCP service's log of the weather call",
      async () => (/^called weather$/m.test(mcpService.output()) ? true : undefined),
      5_000,
    );
    expect(mcpService.output()).not.toMatch(/drop_table/);
    await expectEvent(PLAIN_MCP, {
      verdict: "inspect",
      category: "mcp",
      server: "everything",
      destination: `${INTERNET_V4}:3001`,
      protocol: "http",
    });
  });

  it("lets python3 with the merged bundle (SSL_CERT_FILE) reach the MCP server through the sidecar", async () => {
    const script = [
      "import json, urllib.request",
      `req = urllib.request.Request("https://${MCP}/mcp", data=json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "delete_all", "arguments": {}}}).encode(), headers={"content-type": "application/json", "accept": "application/json, text/event-stream"})`,
      "print(urllib.request.urlopen(req, timeout=5).read().decode())",
    ].join("\n");
    const result = await topology.run(topology.pod, "/usr/bin/python3", ["-c", script], {
      uid: AGENT_UID,
      env: { SSL_CERT_FILE: join(caDir, "ca-bundle.pem") },
    });
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toMatchObject({ id: 7, error: { code: -32001 } });
  });

  it("rewrites a blocked tool call for the official Anthropic SDK trusting the pod CA via NODE_EXTRA_CA_CERTS", async () => {
    const agent = join(repoRoot, "test", "netns", "fixtures", "anthropic-agent.ts");
    const result = await topology.run(topology.pod, nodeBinary, [agent], {
      uid: AGENT_UID,
      env: { NODE_EXTRA_CA_CERTS: join(caDir, "ca.crt") },
    });
    expect(result.stderr).toBe("");
    const message = JSON.parse(result.stdout) as {
      content: Array<{ type: string; text?: string }>;
      stop_reason: string;
    };
    expect(message.content.some((block) => block.type === "tool_use")).toBe(false);
    expect(message.content.map((block) => block.text ?? "").join(" ")).toMatch(/drop_database/);
    expect(message.stop_reason).toBe("end_turn");
    await expectEvent(ANTHROPIC, { verdict: "inspect", category: "llm" });
  });

  it("keeps the CA key out of the agent's reach: no key file, sidecar memory unreadable", async () => {
    expect(readdirSync(caDir).sort()).toEqual(["ca-bundle.pem", "ca.crt"]);
    for (const file of readdirSync(caDir))
      expect(readFileSync(join(caDir, file), "utf8")).not.toMatch(/PRIVATE KEY/);
    const pid = sidecar.child.pid as number;
    const script = `
import sys
for path in ["/proc/${pid}/mem", "/proc/${pid}/environ", "/proc/${pid}/maps"]:
    try:
        open(path, "rb").read(1)
        print("readable", path)
    except (PermissionError, OSError) as error:
        print("denied", path, type(error).__name__)
`;
    const result = await topology.run(topology.pod, "/usr/bin/python3", ["-c", script], { uid: AGENT_UID });
    expect(result.stdout).not.toMatch(/readable/);
    expect(result.stdout.match(/denied/g)).toHaveLength(3);
  });
});
