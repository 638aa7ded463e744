import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import {
  chooseBackend,
  existingJumps,
  type InitOptions,
  parseResolvConf,
  renderRules,
  validateOptions,
} from "../../src/init/rules.ts";

const here = dirname(fileURLToPath(import.meta.url));
const goldenDir = join(here, "golden");
const resolvConf = join(here, "fixtures", "resolv.conf");

/** Compares with test/init/golden/NAME; `UPDATE_GOLDEN=1` rewrites the file instead. */
function expectGolden(name: string, actual: string): void {
  const file = join(goldenDir, name);
  if (process.env.UPDATE_GOLDEN === "1" || !existsSync(file)) {
    if (process.env.CI === "true" && !existsSync(file)) throw new Error(`golden file ${name} is missing`);
    mkdirSync(goldenDir, { recursive: true });
    writeFileSync(file, actual);
  }
  expect(actual).toBe(readFileSync(file, "utf8"));
}

const defaults: InitOptions = {
  proxyUid: 1337,
  proxyGid: 1337,
  proxyPort: 15001,
  excludePorts: [],
  excludeCidrs: [],
  resolvers: ["10.96.0.10", "fd00:10:96::a"],
};

const withExclusions: InitOptions = {
  ...defaults,
  proxyGid: 2000,
  excludePorts: [22, 6379],
  excludeCidrs: ["10.0.0.0/8", "fd00:abcd::/32", "192.168.1.7"],
};

describe("toolwall init rule generation", () => {
  it("renders the default IPv4 and IPv6 rules byte for byte", () => {
    expectGolden("default.ipv4.golden.txt", renderRules(defaults, 4));
    expectGolden("default.ipv6.golden.txt", renderRules(defaults, 6));
  });

  it("renders excluded ports and per-family excluded CIDRs", () => {
    expectGolden("exclusions.ipv4.golden.txt", renderRules(withExclusions, 4));
    expectGolden("exclusions.ipv6.golden.txt", renderRules(withExclusions, 6));
  });

  it("omits the OUTPUT jumps on a rerun so they are never doubled", () => {
    const rerun = renderRules(defaults, 4, { nat: true, filter: true });
    expect(rerun).not.toContain("-A OUTPUT");
    expect(rerun).toContain(":TOOLWALL_OUTPUT - [0:0]");
    expectGolden("rerun.ipv4.golden.txt", rerun);
  });

  it("orders the nat chain as Istio does: ports, owner, loopback, CIDRs, then REDIRECT last", () => {
    const lines = renderRules(withExclusions, 4)
      .split("\n")
      .filter((l) => l.startsWith("-A TOOLWALL_OUTPUT"));
    const natEnd = lines.findIndex((l) => l.includes("REDIRECT"));
    const nat = lines.slice(0, natEnd + 1);
    const position = (text: string) => nat.findIndex((l) => l.includes(text));
    expect(position("--dport 22")).toBeLessThan(position("--uid-owner 1337"));
    expect(position("--uid-owner 1337")).toBeLessThan(position("127.0.0.0/8"));
    expect(position("127.0.0.0/8")).toBeLessThan(position("10.0.0.0/8"));
    expect(nat.at(-1)).toBe("-A TOOLWALL_OUTPUT -p tcp -j REDIRECT --to-ports 15001");
  });

  it("allows UDP only to the pod's resolvers on port 53 and rejects the rest", () => {
    const v6 = renderRules(defaults, 6);
    expect(v6).toContain("-A TOOLWALL_OUTPUT -d fd00:10:96::a/128 -p udp -m udp --dport 53 -j RETURN");
    expect(v6).toContain("-A TOOLWALL_OUTPUT -p udp -j REJECT --reject-with icmp6-port-unreachable");
    expect(v6).not.toContain("10.96.0.10");
  });

  it("rejects bad options with a clear error", () => {
    expect(() => validateOptions({ ...defaults, proxyPort: 70000 })).toThrow(/invalid port 70000/);
    expect(() => validateOptions({ ...defaults, excludeCidrs: ["10.0.0.0/33"] })).toThrow(/prefix/);
    expect(() => validateOptions({ ...defaults, excludeCidrs: ["example.com/8"] })).toThrow(/invalid CIDR/);
    expect(() => validateOptions({ ...defaults, excludePorts: [15001] })).toThrow(/cannot be excluded/);
    expect(() => validateOptions({ ...defaults, proxyUid: -1 })).toThrow(/uid/);
  });

  it("reads nameservers from resolv.conf, dropping zone ids and duplicates", () => {
    expect(parseResolvConf(readFileSync(resolvConf, "utf8"))).toEqual(["10.96.0.10", "fd00:10:96::a"]);
    expect(parseResolvConf("nameserver fe80::1%eth0\nnameserver fe80::1\nnameserver bogus\n")).toEqual([
      "fe80::1",
    ]);
  });

  it("chooses legacy only when legacy rules exist, as Istio does", () => {
    expect(chooseBackend("", true)).toBe("nft");
    expect(chooseBackend("*nat\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n", true)).toBe("nft");
    expect(chooseBackend("*nat\n-A POSTROUTING -j KUBE-POSTROUTING\nCOMMIT\n", true)).toBe("legacy");
    expect(chooseBackend("", false)).toBe("legacy");
  });

  it("finds Toolwall's existing jumps per table in iptables-save output", () => {
    const save = "*nat\n-A OUTPUT -p tcp -j TOOLWALL_OUTPUT\nCOMMIT\n*filter\n-A OUTPUT -j OTHER\nCOMMIT\n";
    expect(existingJumps(save)).toEqual({ nat: true, filter: false });
  });
});

describe("toolwall init --dry-run", () => {
  it("prints the exact iptables-restore and ip6tables-restore input", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        join(here, "..", "..", "bin", "toolwall.js"),
        "init",
        "--dry-run",
        "--backend",
        "nft",
        "--resolv-conf",
        resolvConf,
        "--exclude-ports",
        "22,6379",
        "--exclude-cidrs",
        "10.0.0.0/8,fd00:abcd::/32,192.168.1.7",
        "--proxy-gid",
        "2000",
      ],
      { env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` } },
    );
    expectGolden("dry-run.golden.txt", stdout);
    expect(stdout).toContain(renderRules(withExclusions, 4));
    expect(stdout).toContain(renderRules(withExclusions, 6));
  });

  it("refuses a malformed flag with usage exit code 2", async () => {
    const result = await promisify(execFile)(process.execPath, [
      join(here, "..", "..", "bin", "toolwall.js"),
      "init",
      "--dry-run",
      "--exclude-ports",
      "ssh",
    ]).catch((error: { code: number; stderr: string }) => error);
    expect((result as { code: number }).code).toBe(2);
    expect((result as { stderr: string }).stderr).toContain("'ssh' is not a port");
  });
});
