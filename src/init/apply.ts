import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  type Backend,
  chooseBackend,
  type ExistingJumps,
  existingJumps,
  type Family,
  type InitOptions,
  NO_JUMPS,
  renderRules,
} from "./rules.ts";

const execFileAsync = promisify(execFile);

const SEARCH_PATH = ["/usr/sbin", "/sbin", "/usr/bin", "/bin"];

function findTool(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? "").split(":").filter(Boolean), ...SEARCH_PATH];
  for (const dir of dirs) {
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** `iptables-nft-restore`, falling back to the unsuffixed tool on images that ship only one flavour. */
function tool(backend: Backend, family: Family, action: "save" | "restore"): string {
  const base = family === 4 ? "iptables" : "ip6tables";
  const found = findTool(`${base}-${backend}-${action}`) ?? findTool(`${base}-${action}`);
  if (!found) throw new Error(`${base}-${action} not found: install iptables`);
  return found;
}

async function output(command: string, args: string[]): Promise<string> {
  const { stdout } = await execFileAsync(command, args, { maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

export async function detectBackend(): Promise<Backend> {
  const legacySave = findTool("iptables-legacy-save");
  const nftAvailable = findTool("iptables-nft-restore") !== undefined;
  const legacyRules = legacySave ? await output(legacySave, []).catch(() => "") : "";
  return chooseBackend(legacyRules, nftAvailable);
}

function restore(command: string, input: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = execFile(command, ["--noflush"], (error, _stdout, stderr) => {
      if (error) reject(new Error(`${command} --noflush failed: ${stderr.trim() || error.message}`));
      else resolve();
    });
    child.stdin?.end(input);
  });
}

export interface AppliedRules {
  backend: Backend;
  rules: Record<Family, string>;
}

/** Applies both families; a rerun replaces Toolwall's chains and leaves the jumps single. */
export async function applyRules(options: InitOptions, backend: Backend): Promise<AppliedRules> {
  const rules = {} as Record<Family, string>;
  for (const family of [4, 6] as const) {
    const current: ExistingJumps = existingJumps(await output(tool(backend, family, "save"), []));
    rules[family] = renderRules(options, family, current);
    await restore(tool(backend, family, "restore"), rules[family]);
  }
  return { backend, rules };
}

/** What `--dry-run` prints: the exact input a first run applies, each family headed by its command. */
export function dryRunText(options: InitOptions, backend: Backend): string {
  return [4, 6]
    .map((family) => {
      const command = `${family === 4 ? "iptables" : "ip6tables"}-${backend}-restore --noflush`;
      return `# ${command}\n${renderRules(options, family as Family, NO_JUMPS)}`;
    })
    .join("");
}
