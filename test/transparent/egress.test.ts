import { describe, expect, it } from "vitest";
import { type ConnectionFacts, EgressPolicy } from "../../src/dataplane/egress.ts";
import { policyDocument } from "../helpers/policy-document.ts";

const tls = (name: string | undefined, address = "203.0.113.10", port = 443): ConnectionFacts => ({
  name,
  address,
  port,
  protocol: "tls",
});

const research = policyDocument(
  {
    servers: [
      { name: "github", transport: "StreamableHTTP", url: "https://mcp.github.com/mcp" },
      { name: "local", transport: "StreamableHTTP", url: "http://mcp.internal:8080/mcp" },
      { name: "fs", transport: "Stdio", command: ["mcp-fs"] },
    ],
    llm: { providers: [{ host: "vllm.internal:8000", dialect: "OpenAIChat" }] },
    egress: {
      default: "Deny",
      rules: [
        { name: "pypi", action: "Allow", hosts: ["*.pythonhosted.org", "pypi.org"] },
        { name: "paste", action: "Deny", hosts: ["*.pastebin.com"], cidrs: ["198.51.100.0/24"] },
        { name: "ssh", action: "Allow", cidrs: ["192.0.2.0/24"], ports: [22] },
      ],
      inspect: ["*.corp.example"],
      tlsPassthrough: ["*.pinned.example"],
    },
  },
  { namespace: "agents", name: "research" },
);

describe("egress classification", () => {
  const policy = new EgressPolicy([research]);

  it("inspects built-in LLM providers, declared ones with their port, and declared MCP servers", () => {
    expect(policy.classify(tls("api.anthropic.com"))).toMatchObject({ verdict: "inspect", category: "llm" });
    expect(policy.classify(tls("us-central1-aiplatform.googleapis.com"))).toMatchObject({
      verdict: "inspect",
    });
    expect(policy.classify(tls("vllm.internal", "10.0.0.5", 8000))).toMatchObject({
      verdict: "inspect",
      category: "llm",
    });
    expect(policy.classify(tls("vllm.internal", "10.0.0.5", 9000))).toMatchObject({ verdict: "deny" });
    expect(policy.classify(tls("mcp.github.com"))).toMatchObject({
      verdict: "inspect",
      category: "mcp",
      rule: "agents/research#servers",
      server: "github",
    });
    expect(policy.classify({ ...tls("mcp.internal", "10.0.0.6", 8080), protocol: "http" })).toMatchObject({
      verdict: "inspect",
    });
    expect(policy.classify(tls("git.corp.example"))).toMatchObject({
      verdict: "inspect",
      category: "inspect",
    });
  });

  it("tunnels allowed hosts and passthrough hosts, denies by rule and by default", () => {
    expect(policy.classify(tls("files.pythonhosted.org"))).toMatchObject({
      verdict: "tunnel",
      rule: "agents/research#egress.rules[pypi]",
    });
    expect(policy.classify(tls("api.pinned.example"))).toMatchObject({ verdict: "deny" });
    expect(policy.classify(tls("x.pastebin.com"))).toMatchObject({
      verdict: "deny",
      rule: "agents/research#egress.rules[paste]",
    });
    expect(policy.classify(tls("example.org"))).toMatchObject({
      verdict: "deny",
      rule: "agents/research#egress.default",
    });
  });

  it("reads IPv6 host patterns with and without brackets and a port (the kernel's host[:port] reader)", () => {
    const v6 = new EgressPolicy([
      policyDocument({
        egress: {
          default: "Allow",
          rules: [
            { name: "bare", action: "Deny", hosts: ["fd00::1"] },
            { name: "bracketed", action: "Deny", hosts: ["[fd00::2]:8443"] },
          ],
        },
      }),
    ]);
    expect(v6.classify(tls(undefined, "fd00::1", 443))).toMatchObject({ verdict: "deny" });
    expect(v6.classify(tls(undefined, "fd00::1", 1))).toMatchObject({ verdict: "deny" });
    expect(v6.classify(tls(undefined, "fd00::2", 8443))).toMatchObject({ verdict: "deny" });
    expect(v6.classify(tls(undefined, "fd00::2", 443))).toMatchObject({ verdict: "tunnel" });
  });

  it("matches CIDR rules and ports even without a name", () => {
    expect(
      policy.classify({ name: undefined, address: "192.0.2.9", port: 22, protocol: "unknown" }),
    ).toMatchObject({ verdict: "tunnel" });
    expect(
      policy.classify({ name: undefined, address: "192.0.2.9", port: 23, protocol: "unknown" }),
    ).toMatchObject({ verdict: "deny" });
    expect(policy.classify(tls("pypi.org", "198.51.100.7"))).toMatchObject({
      verdict: "deny",
      rule: "agents/research#egress.rules[paste]",
    });
  });

  it("denies cloud metadata endpoints unless a rule allows them explicitly", () => {
    const open = new EgressPolicy([policyDocument({ egress: { default: "Allow" } })]);
    expect(
      open.classify({ name: undefined, address: "169.254.169.254", port: 80, protocol: "http" }),
    ).toMatchObject({
      verdict: "deny",
      category: "metadata",
    });
    expect(
      open.classify({ name: undefined, address: "fd00:ec2::254", port: 80, protocol: "http" }),
    ).toMatchObject({ verdict: "deny" });
    const allowed = new EgressPolicy([
      policyDocument({
        egress: { default: "Allow", rules: [{ action: "Allow", cidrs: ["169.254.169.254/32"] }] },
      }),
    ]);
    expect(
      allowed.classify({ name: undefined, address: "169.254.169.254", port: 80, protocol: "http" }),
    ).toMatchObject({ verdict: "tunnel" });
  });

  it("lists the literal inspected names whose leaves can be issued ahead of use", () => {
    const names = policy.literalInspectedNames();
    expect(names).toEqual(
      expect.arrayContaining(["api.anthropic.com", "mcp.github.com", "mcp.internal", "vllm.internal"]),
    );
    expect(names.some((n) => n.includes("*") || n.includes("\\"))).toBe(false);
  });

  it("with no policy inspects LLM providers and tunnels the rest", () => {
    const none = new EgressPolicy([]);
    expect(none.classify(tls("api.openai.com")).verdict).toBe("inspect");
    expect(none.classify(tls("example.org")).verdict).toBe("tunnel");
  });

  it("lets deny win across policies, and records an Audit policy's deny without enforcing it", () => {
    const allowAll = policyDocument({ egress: { default: "Allow" } }, { name: "open" });
    const denyAll = policyDocument({ egress: { default: "Deny" } }, { name: "closed" });
    expect(new EgressPolicy([allowAll, denyAll]).classify(tls("example.org")).verdict).toBe("deny");
    const audit = policyDocument({ mode: "Audit", egress: { default: "Deny" } }, { name: "watch" });
    expect(new EgressPolicy([allowAll, audit]).classify(tls("example.org"))).toMatchObject({
      verdict: "tunnel",
      wouldDeny: true,
      mode: "Audit",
    });
  });
});
