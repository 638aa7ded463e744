/**
 * Egress classification of a redirected connection: inspect (LLM providers, declared MCP servers,
 * `egress.inspect` hosts), tunnel (allowed, bytes untouched) or deny — a pure function of the
 * policies that apply to the pod and the facts about the connection.
 */
import { BlockList, isIP } from "node:net";
import { builtinProviderHosts } from "../dialects/providers.ts";
import { splitHostPort } from "../kernel/host-port.ts";
import { canonicalHost, sameAddress } from "../net/resolver.ts";
import { mergeByMode } from "../policy/evaluate.ts";
import { compileGlob, type GlobMatcher, isLiteralGlob } from "../policy/glob.ts";
import type { PolicyDocument } from "../policy/types.ts";

export type Verdict = "inspect" | "tunnel" | "deny";

export interface ConnectionFacts {
  /** Original destination address (SO_ORIGINAL_DST). */
  address: string;
  port: number;
  /** Name from SNI or Host, lower case; undefined when the client sent none. */
  name: string | undefined;
  protocol: "tls" | "http" | "unknown";
}

export interface EgressDecision {
  verdict: Verdict;
  reason: string;
  /** `<ns>/<policy>#<path>` of the rule that decided, or a built-in marker. */
  rule: string;
  mode: "Enforce" | "Audit";
  /** What the destination is, for audit and metrics (a bounded set). */
  category: "llm" | "mcp" | "inspect" | "passthrough" | "egress" | "metadata" | "invalid";
  /** An Audit-mode policy would have denied: recorded as a deny, not enforced. */
  wouldDeny?: boolean;
  /** The declared MCP server the destination is (category mcp). */
  server?: string;
}

/** Hosts of the LLM APIs the dialects understand; always inspected. */
export const BUILT_IN_LLM_HOSTS = builtinProviderHosts.map((provider) => provider.host);

/** Cloud instance metadata endpoints: a credential source, denied unless a rule allows them. */
export const METADATA_ADDRESSES = ["169.254.169.254", "fd00:ec2::254", "169.254.170.2", "100.100.100.200"];
export const METADATA_NAMES = ["metadata.google.internal", "metadata"];

interface HostPattern {
  /** The host glob, lower case, without a trailing dot; a literal host in canonicalHost's spelling. */
  host: string;
  /** Matches a lower-case name (src/policy/glob.ts semantics). */
  match: GlobMatcher;
  port: number | undefined;
  /** The declared MCP server a pattern came from. */
  server?: string;
}

function hostGlob(glob: string): Pick<HostPattern, "host" | "match"> {
  const host = canonicalHost(glob);
  return { host, match: compileGlob(host) };
}

/**
 * `host`, `*.host`, `host:8000`, `[v6]:8000` (port omitted: any port), read by the kernel's
 * host[:port] reader; what it cannot read (a bare IPv6 address, `fd00::1`) is a host without a port.
 */
export function hostPattern(text: string): HostPattern {
  const trimmed = text.trim();
  const parts = splitHostPort(trimmed);
  return { ...hostGlob(parts?.host ?? trimmed), port: parts?.port };
}

/**
 * The first pattern naming the destination: by its name in canonical spelling, or, for a pattern
 * that is an address (or `localhost`), by the address the connection goes to — another name for
 * the same address is the same destination.
 */
function findHost(
  patterns: HostPattern[],
  facts: Pick<ConnectionFacts, "name" | "address" | "port">,
): HostPattern | undefined {
  const name = facts.name === undefined ? undefined : canonicalHost(facts.name);
  return patterns.find(
    (p) =>
      (p.port === undefined || p.port === facts.port) &&
      ((name !== undefined && p.match(name)) ||
        (facts.address !== "" && isAddressPattern(p.host) && sameAddress(p.host, facts.address))),
  );
}

function isAddressPattern(host: string): boolean {
  return host === "localhost" || isIP(host) !== 0;
}

export function matchesHost(
  patterns: HostPattern[],
  facts: Pick<ConnectionFacts, "name" | "address" | "port">,
) {
  return findHost(patterns, facts) !== undefined;
}

function blockList(cidrs: string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address = "", prefixText] = cidr.split("/");
    const family = isIP(address);
    if (family === 0) throw new Error(`invalid CIDR '${cidr}'`);
    const type = family === 4 ? "ipv4" : "ipv6";
    const prefix = prefixText === undefined ? (family === 4 ? 32 : 128) : Number(prefixText);
    list.addSubnet(address, prefix, type);
  }
  return list;
}

function contains(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 4 ? "ipv4" : "ipv6");
}

interface CompiledRule {
  path: string;
  action: "Allow" | "Deny";
  hosts: HostPattern[];
  cidrs: BlockList;
  ports: number[];
}

interface CompiledPolicy {
  id: string;
  mode: "Enforce" | "Audit";
  defaultAction: "Allow" | "Deny";
  rules: CompiledRule[];
  llm: HostPattern[];
  mcp: HostPattern[];
  inspect: HostPattern[];
  passthrough: HostPattern[];
}

function serverPattern(url: string): HostPattern | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return undefined;
    const port = parsed.port ? Number(parsed.port) : parsed.protocol === "https:" ? 443 : 80;
    return { ...hostGlob(parsed.hostname.replace(/^\[|\]$/g, "")), port };
  } catch {
    return undefined;
  }
}

function compilePolicy(policy: PolicyDocument): CompiledPolicy {
  const id = `${policy.namespace}/${policy.name}`;
  const egress = policy.spec.egress ?? {};
  return {
    id,
    mode: policy.spec.mode ?? "Enforce",
    defaultAction: egress.default ?? "Allow",
    rules: (egress.rules ?? []).map((rule, index) => ({
      path: `${id}#egress.rules[${rule.name ?? index}]`,
      action: rule.action,
      hosts: (rule.hosts ?? []).map(hostPattern),
      cidrs: blockList(rule.cidrs ?? []),
      ports: rule.ports ?? [],
    })),
    llm: (policy.spec.llm?.providers ?? []).map((p) => hostPattern(p.host)),
    mcp: (policy.spec.servers ?? []).flatMap((s) => {
      const pattern = s.url ? serverPattern(s.url) : undefined;
      return pattern ? [{ ...pattern, ...(s.name ? { server: s.name } : {}) }] : [];
    }),
    inspect: (egress.inspect ?? []).map(hostPattern),
    passthrough: (egress.tlsPassthrough ?? []).map(hostPattern),
  };
}

export interface ClassifyOptions {
  /**
   * Judge the destination as if no MCP server were declared on it: what a request on a declared
   * MCP origin whose path no declared server owns is held to (issue 10, build item 3).
   */
  ignoreMcpServers?: boolean;
}

export class EgressPolicy {
  private readonly policies: CompiledPolicy[];
  private readonly builtInLlm = BUILT_IN_LLM_HOSTS.map(hostPattern);
  private readonly metadata = blockList(METADATA_ADDRESSES);
  private readonly metadataNames = METADATA_NAMES.map(hostPattern);

  constructor(policies: readonly PolicyDocument[]) {
    this.policies = policies.map(compilePolicy);
  }

  /** Literal (wildcard-free) names that will be inspected: their leaves can be issued ahead of use. */
  literalInspectedNames(): string[] {
    const names = new Set<string>();
    for (const pattern of [
      ...this.builtInLlm,
      ...this.policies.flatMap((p) => [...p.llm, ...p.mcp, ...p.inspect]),
    ]) {
      if (isLiteralGlob(pattern.host)) names.add(pattern.host);
    }
    return [...names];
  }

  /**
   * The literal hosts the policies declare as inspected (LLM providers, MCP servers, `egress.inspect`)
   * with their ports: what a connection to a bare address must be checked against, since the same
   * server may be reached under its address or another name.
   */
  declaredInspectedHosts(): { host: string; port: number | undefined }[] {
    return this.policies
      .flatMap((p) => [...p.llm, ...p.mcp, ...p.inspect])
      .filter((pattern) => isLiteralGlob(pattern.host) && !isAddressPattern(pattern.host))
      .map(({ host, port }) => ({ host, port }));
  }

  /** Every applicable policy decides; deny wins (an Audit policy's deny is recorded, not enforced). */
  classify(facts: ConnectionFacts, options: ClassifyOptions = {}): EgressDecision {
    if (this.policies.length === 0) return this.decide(undefined, facts, options);
    const { enforcedDeny, auditDeny, allowed } = mergeByMode(
      this.policies,
      (policy) => this.decide(policy, facts, options),
      (decision) => decision.verdict === "deny",
    );
    if (enforcedDeny) return enforcedDeny;
    const inspect = allowed.find((d) => d.verdict === "inspect");
    if (auditDeny) {
      const fallback = inspect ?? allowed[0] ?? { ...auditDeny, verdict: this.builtInVerdict(facts) };
      return { ...auditDeny, verdict: fallback.verdict, wouldDeny: true };
    }
    return inspect ?? (allowed[0] as EgressDecision);
  }

  private builtInVerdict(facts: ConnectionFacts): Verdict {
    return matchesHost(this.builtInLlm, facts) ? "inspect" : "tunnel";
  }

  private decide(
    policy: CompiledPolicy | undefined,
    facts: ConnectionFacts,
    options: ClassifyOptions = {},
  ): EgressDecision {
    const mode = policy?.mode ?? "Enforce";
    const id = policy?.id ?? "builtin";
    const matching = (action: "Allow" | "Deny") =>
      policy?.rules.find(
        (rule) =>
          rule.action === action &&
          (matchesHost(rule.hosts, facts) || contains(rule.cidrs, facts.address)) &&
          (rule.ports.length === 0 || rule.ports.includes(facts.port)),
      );
    const deny = matching("Deny");
    if (deny)
      return {
        verdict: "deny",
        reason: "egress rule denies this destination",
        rule: deny.path,
        mode,
        category: "egress",
      };
    const allow = matching("Allow");
    const isMetadata = contains(this.metadata, facts.address) || matchesHost(this.metadataNames, facts);
    if (isMetadata && !allow) {
      return {
        verdict: "deny",
        reason: "cloud metadata endpoint",
        rule: `${id}#metadata`,
        mode,
        category: "metadata",
      };
    }
    const allowedByDefault = (policy?.defaultAction ?? "Allow") === "Allow";
    if (policy && matchesHost(policy.passthrough, facts)) {
      if (allow || allowedByDefault) {
        return {
          verdict: "tunnel",
          reason: "TLS passthrough host",
          rule: allow?.path ?? `${id}#egress.tlsPassthrough`,
          mode,
          category: "passthrough",
        };
      }
    } else {
      const inspected: Array<[HostPattern[], EgressDecision["category"], string]> = [
        [this.builtInLlm, "llm", "builtin#llm"],
        [policy?.llm ?? [], "llm", `${id}#llm.providers`],
        [options.ignoreMcpServers ? [] : (policy?.mcp ?? []), "mcp", `${id}#servers`],
        [policy?.inspect ?? [], "inspect", `${id}#egress.inspect`],
      ];
      for (const [patterns, category, rule] of inspected) {
        const match = findHost(patterns, facts);
        if (match) {
          const decision: EgressDecision = {
            verdict: "inspect",
            reason: `${category} destination is inspected`,
            rule,
            mode,
            category,
          };
          return match.server ? { ...decision, server: match.server } : decision;
        }
      }
    }
    if (allow)
      return {
        verdict: "tunnel",
        reason: "egress rule allows this destination",
        rule: allow.path,
        mode,
        category: "egress",
      };
    return allowedByDefault
      ? {
          verdict: "tunnel",
          reason: "egress default allows",
          rule: `${id}#egress.default`,
          mode,
          category: "egress",
        }
      : {
          verdict: "deny",
          reason: "egress default denies",
          rule: `${id}#egress.default`,
          mode,
          category: "egress",
        };
  }
}
