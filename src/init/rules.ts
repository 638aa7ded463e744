/**
 * The iptables-restore input `toolwall init` applies: a pure function of its options, so the exact
 * text is covered by golden files and `--dry-run` prints what a real run would apply.
 */
import { isIP } from "node:net";

export const CHAIN = "TOOLWALL_OUTPUT";

export interface InitOptions {
  proxyUid: number;
  proxyGid: number;
  proxyPort: number;
  /** TCP destination ports never redirected. */
  excludePorts: number[];
  /** Destination CIDRs (either family) never redirected. */
  excludeCidrs: string[];
  /** The pod's DNS resolvers (from resolv.conf): the only UDP destinations allowed, port 53 only. */
  resolvers: string[];
}

/** Whether the OUTPUT → TOOLWALL_OUTPUT jumps already exist (a rerun must not add them twice). */
export interface ExistingJumps {
  nat: boolean;
  filter: boolean;
}

export const NO_JUMPS: ExistingJumps = { nat: false, filter: false };

export type Family = 4 | 6;

const LOOPBACK: Record<Family, string> = { 4: "127.0.0.0/8", 6: "::1/128" };
const HOST_PREFIX: Record<Family, number> = { 4: 32, 6: 128 };
const REJECT_WITH: Record<Family, string> = { 4: "icmp-port-unreachable", 6: "icmp6-port-unreachable" };

export function validateOptions(options: InitOptions): void {
  const isId = (n: number) => Number.isInteger(n) && n >= 0 && n < 2 ** 32;
  if (!isId(options.proxyUid)) throw new Error(`invalid proxy uid ${options.proxyUid}`);
  if (!isId(options.proxyGid)) throw new Error(`invalid proxy gid ${options.proxyGid}`);
  for (const port of [options.proxyPort, ...options.excludePorts]) {
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`invalid port ${port}`);
  }
  if (options.excludePorts.includes(options.proxyPort)) {
    throw new Error(`the proxy port ${options.proxyPort} cannot be excluded`);
  }
  for (const cidr of options.excludeCidrs) cidrFamily(cidr);
  for (const resolver of options.resolvers) {
    if (isIP(resolver) === 0) throw new Error(`invalid resolver address '${resolver}'`);
  }
}

/** The family of a CIDR such as `10.0.0.0/8` or `fd00::/8`; throws on anything else. */
export function cidrFamily(cidr: string): Family {
  const slash = cidr.indexOf("/");
  const address = slash < 0 ? cidr : cidr.slice(0, slash);
  const family = isIP(address);
  if (family === 0) throw new Error(`invalid CIDR '${cidr}'`);
  if (slash >= 0) {
    const prefixText = cidr.slice(slash + 1);
    const prefix = Number(prefixText);
    if (!/^\d{1,3}$/.test(prefixText) || prefix > HOST_PREFIX[family as Family]) {
      throw new Error(`invalid CIDR prefix in '${cidr}'`);
    }
  }
  return family as Family;
}

function withPrefix(address: string, family: Family): string {
  return address.includes("/") ? address : `${address}/${HOST_PREFIX[family]}`;
}

/** iptables-restore input for one family; apply with `--noflush` so other chains stay as they are. */
export function renderRules(
  options: InitOptions,
  family: Family,
  existing: ExistingJumps = NO_JUMPS,
): string {
  validateOptions(options);
  const owner = [
    `-A ${CHAIN} -m owner --uid-owner ${options.proxyUid} -j RETURN`,
    `-A ${CHAIN} -m owner --gid-owner ${options.proxyGid} -j RETURN`,
  ];
  const loopback = `-A ${CHAIN} -d ${LOOPBACK[family]} -j RETURN`;
  const resolvers = options.resolvers.filter((r) => isIP(r) === family).map((r) => withPrefix(r, family));
  const excludedCidrs = options.excludeCidrs.filter((c) => cidrFamily(c) === family);

  const nat = [
    "*nat",
    `:${CHAIN} - [0:0]`,
    ...(existing.nat ? [] : [`-A OUTPUT -p tcp -j ${CHAIN}`]),
    ...options.excludePorts.map((port) => `-A ${CHAIN} -p tcp -m tcp --dport ${port} -j RETURN`),
    ...owner,
    loopback,
    ...excludedCidrs.map((cidr) => `-A ${CHAIN} -d ${withPrefix(cidr, family)} -j RETURN`),
    ...resolvers.map((r) => `-A ${CHAIN} -d ${r} -p tcp -m tcp --dport 53 -j RETURN`),
    `-A ${CHAIN} -p tcp -j REDIRECT --to-ports ${options.proxyPort}`,
    "COMMIT",
  ];
  const filter = [
    "*filter",
    `:${CHAIN} - [0:0]`,
    ...(existing.filter ? [] : [`-A OUTPUT -p udp -j ${CHAIN}`]),
    ...owner,
    loopback,
    ...resolvers.map((r) => `-A ${CHAIN} -d ${r} -p udp -m udp --dport 53 -j RETURN`),
    `-A ${CHAIN} -p udp -j REJECT --reject-with ${REJECT_WITH[family]}`,
    "COMMIT",
  ];
  return `${[...nat, ...filter].join("\n")}\n`;
}

/** Nameserver addresses in resolv.conf text (zone suffixes such as `%eth0` dropped). */
export function parseResolvConf(text: string): string[] {
  const resolvers: string[] = [];
  for (const line of text.split("\n")) {
    const [keyword, value] = line.trim().split(/\s+/);
    if (keyword !== "nameserver" || !value) continue;
    const address = value.split("%")[0] ?? "";
    if (isIP(address) !== 0 && !resolvers.includes(address)) resolvers.push(address);
  }
  return resolvers;
}

export type Backend = "nft" | "legacy";

/**
 * Istio's rule: use legacy iptables only when the namespace already holds legacy rules (the node's
 * kube-proxy or CNI speaks legacy), otherwise nft — unless nft tooling is missing.
 */
export function chooseBackend(legacySaveOutput: string, nftAvailable: boolean): Backend {
  const legacyHasRules = legacySaveOutput.split("\n").some((line) => line.startsWith("-A "));
  if (legacyHasRules || !nftAvailable) return "legacy";
  return "nft";
}

/** Whether iptables-save output already holds Toolwall's jump from OUTPUT in a table. */
export function existingJumps(saveOutput: string): ExistingJumps {
  const result = { nat: false, filter: false };
  let table = "";
  for (const line of saveOutput.split("\n")) {
    if (line.startsWith("*")) table = line.slice(1).trim();
    if (line.startsWith("-A OUTPUT ") && line.includes(`-j ${CHAIN}`)) {
      if (table === "nat") result.nat = true;
      if (table === "filter") result.filter = true;
    }
  }
  return result;
}
