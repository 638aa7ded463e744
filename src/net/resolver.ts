/**
 * Toolwall's own name resolution: `--resolve NAME=IP` overrides (like curl's, for tests and
 * air-gapped hosts), otherwise the system resolver with every address of both families.
 */

import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { CappedMap } from "../kernel/bounded-map.ts";

const CACHE_TTL_MS = 30_000;
const CACHE_MAX = 10_000;

export class Resolver {
  private readonly overrides = new Map<string, string[]>();
  /** getaddrinfo gives no TTL: answers are kept briefly so every tunnel does not wait on DNS. */
  private readonly cache = new CappedMap<string, { addresses: string[]; expires: number }>(CACHE_MAX);
  private readonly now: () => number;

  /** Entries `NAME=IP[,IP…]`; a name may be given several times. */
  constructor(entries: string[] = [], now: () => number = Date.now) {
    this.now = now;
    for (const entry of entries) {
      const at = entry.indexOf("=");
      const name = entry.slice(0, at).trim().toLowerCase();
      const addresses = entry
        .slice(at + 1)
        .split(",")
        .map((a) => a.trim().replace(/^\[|\]$/g, ""));
      if (at <= 0 || addresses.some((a) => isIP(a) === 0)) {
        throw new Error(`--resolve expects NAME=IP[,IP…], got '${entry}'`);
      }
      this.overrides.set(name, [...(this.overrides.get(name) ?? []), ...addresses]);
    }
  }

  async resolve(name: string): Promise<string[]> {
    const key = name.toLowerCase().replace(/\.$/, "");
    if (isIP(key) !== 0) return [key];
    const override = this.overrides.get(key);
    if (override) return override;
    const cached = this.cache.get(key);
    if (cached && cached.expires > this.now()) return cached.addresses;
    const results = await lookup(key, { all: true, verbatim: true });
    const addresses = results.map((r) => r.address);
    this.cache.set(key, { addresses, expires: this.now() + CACHE_TTL_MS });
    return addresses;
  }

  /** A `lookup` for net/tls/http options, so upstream dials use the same resolution. */
  lookupFunction() {
    return (
      hostname: string,
      options: { family?: number | string; all?: boolean },
      callback: (
        error: Error | null,
        address: string | Array<{ address: string; family: number }>,
        family?: number,
      ) => void,
    ) => {
      this.resolve(hostname).then(
        (addresses) => {
          const wanted =
            options.family === 6 || options.family === "IPv6"
              ? 6
              : options.family === 4 || options.family === "IPv4"
                ? 4
                : 0;
          const list = addresses
            .map((address) => ({ address, family: isIP(address) }))
            .filter((a) => wanted === 0 || a.family === wanted);
          if (list.length === 0) {
            callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), "", 0);
          } else if (options.all) {
            callback(null, list);
          } else {
            callback(null, list[0]?.address as string, list[0]?.family);
          }
        },
        (error: Error) => callback(error, "", 0),
      );
    };
  }
}

/** Compares addresses across spellings (`::ffff:1.2.3.4` is `1.2.3.4`, IPv6 case and zero runs). */
export function sameAddress(a: string, b: string): boolean {
  return canonicalHost(a) === canonicalHost(b);
}

/**
 * One spelling per host, so that names compare as the network reads them: IPv4 in dotted quads
 * (`2130706433`, `0x7f.1` and `127.1` are `127.0.0.1`, as the WHATWG URL parser and inet_aton read
 * them), IPv6 compressed with IPv4-mapped addresses as IPv4, names lower case without brackets or
 * trailing dots, and every spelling of the loopback host (`localhost`, `*.localhost`, `127.0.0.1`,
 * `::1`) as `localhost`.
 */
export function canonicalHost(host: string): string {
  const text = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.+$/, "");
  let canonical = text;
  if (isIP(text) === 6) {
    canonical = new URL(`http://[${text}]/`).hostname.slice(1, -1);
    const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
    if (mapped) {
      const high = Number.parseInt(mapped[1] as string, 16);
      const low = Number.parseInt(mapped[2] as string, 16);
      canonical = [high >> 8, high & 255, low >> 8, low & 255].join(".");
    }
  } else if (/^[0-9a-fx.]+$/.test(text)) {
    // Only digits, dots and hex: the URL parser reads it as an IPv4 address when it is one.
    try {
      canonical = new URL(`http://${text}/`).hostname;
    } catch {
      canonical = text;
    }
  }
  if (canonical === "localhost" || canonical.endsWith(".localhost")) return "localhost";
  if (canonical === "127.0.0.1" || canonical === "::1") return "localhost";
  return canonical;
}
