import { readFileSync } from "node:fs";
import type { Backend, InitOptions } from "../init/rules.ts";
import { PROXY_PORT, PROXY_UID } from "../kernel/mesh.ts";
import { type Command, stringList, UsageError } from "./args.ts";

const USAGE = `Usage: toolwall init [flags]

Programs iptables and ip6tables of the pod's network namespace so that every outbound TCP
connection not made by the proxy uid is redirected to the sidecar, and UDP other than DNS to the
pod's resolvers is rejected. Verifies the redirect before exiting; fails loudly otherwise.

Flags:
  --proxy-uid UID        uid whose traffic is not redirected (default ${PROXY_UID})
  --proxy-gid GID        gid whose traffic is not redirected (default: the proxy uid)
  --proxy-port PORT      port of the transparent listener (default ${PROXY_PORT})
  --exclude-ports LIST   comma-separated TCP destination ports never redirected
  --exclude-cidrs LIST   comma-separated destination CIDRs (IPv4 or IPv6) never redirected
  --resolv-conf FILE     where the pod's resolvers are read (default /etc/resolv.conf)
  --backend B            auto | nft | legacy (default auto: legacy only if legacy rules exist)
  --dry-run              print the exact iptables-restore and ip6tables-restore input and exit
  -h, --help             show this help`;

function integer(values: Record<string, unknown>, name: string, fallback: number): number {
  const text = values[name];
  if (text === undefined) return fallback;
  if (typeof text !== "string" || !/^\d+$/.test(text)) throw new UsageError(`--${name} must be a number`);
  return Number(text);
}

function commaList(values: Record<string, unknown>, name: string): string[] {
  return stringList(values, name)
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter(Boolean);
}

export async function initOptionsFromFlags(values: Record<string, unknown>): Promise<InitOptions> {
  const { parseResolvConf, validateOptions } = await import("../init/rules.ts");
  const proxyUid = integer(values, "proxy-uid", PROXY_UID);
  const resolvConf = (values["resolv-conf"] as string | undefined) ?? "/etc/resolv.conf";
  let resolvText = "";
  try {
    resolvText = readFileSync(resolvConf, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read ${resolvConf}: ${(error as Error).message}`);
  }
  const options: InitOptions = {
    proxyUid,
    proxyGid: integer(values, "proxy-gid", proxyUid),
    proxyPort: integer(values, "proxy-port", PROXY_PORT),
    excludePorts: commaList(values, "exclude-ports").map((p) => {
      if (!/^\d+$/.test(p)) throw new UsageError(`--exclude-ports: '${p}' is not a port`);
      return Number(p);
    }),
    excludeCidrs: commaList(values, "exclude-cidrs"),
    resolvers: parseResolvConf(resolvText),
  };
  try {
    validateOptions(options);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return options;
}

export const initCommand: Command = {
  path: ["init"],
  summary: "program the pod's iptables/ip6tables to redirect egress to the sidecar (init container)",
  usage: USAGE,
  options: {
    "proxy-uid": { type: "string" },
    "proxy-gid": { type: "string" },
    "proxy-port": { type: "string" },
    "exclude-ports": { type: "string", multiple: true },
    "exclude-cidrs": { type: "string", multiple: true },
    "resolv-conf": { type: "string" },
    backend: { type: "string" },
    "dry-run": { type: "boolean" },
  },
  async run(values) {
    const options = await initOptionsFromFlags(values);
    const { applyRules, detectBackend, dryRunText } = await import("../init/apply.ts");
    const requested = (values.backend as string | undefined) ?? "auto";
    if (!["auto", "nft", "legacy"].includes(requested))
      throw new UsageError("--backend must be auto, nft or legacy");
    if (values["dry-run"]) {
      const backend: Backend = requested === "auto" ? await detectBackend() : (requested as Backend);
      process.stdout.write(dryRunText(options, backend));
      return 0;
    }
    if (process.getuid?.() === options.proxyUid) {
      throw new UsageError(
        `toolwall init must not run as the proxy uid ${options.proxyUid}: its traffic bypasses the rules`,
      );
    }
    const backend = requested === "auto" ? await detectBackend() : (requested as Backend);
    await applyRules(options, backend);
    process.stderr.write(`toolwall init: rules applied with iptables-${backend}\n`);
    const { selfCheck } = await import("../init/verify.ts");
    try {
      for (const result of await selfCheck(options.proxyPort, options.excludePorts)) {
        process.stderr.write(
          `toolwall init: self-check IPv${result.family} ${result.outcome}: ${result.detail}\n`,
        );
      }
    } catch (error) {
      process.stderr.write(`toolwall init: SELF-CHECK FAILED: ${(error as Error).message}\n`);
      return 1;
    }
    process.stderr.write("toolwall init: self-check passed\n");
    return 0;
  },
};
