import { type ParseArgsConfig, parseArgs } from "node:util";
import { InputError } from "../kernel/errors.ts";
import { parseHostPort } from "../kernel/host-port.ts";

/** A user mistake on the command line: printed without a stack trace, exit code 2. */
export class UsageError extends InputError {}

export type OptionSpec = NonNullable<ParseArgsConfig["options"]>;

export interface Command {
  /** Words after `toolwall`, e.g. ["policy", "lint"]. */
  path: string[];
  summary: string;
  usage: string;
  options: OptionSpec;
  run(values: Record<string, unknown>, positionals: string[]): Promise<number>;
}

export function parseCommandArgs(command: Command, argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: { ...command.options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n\n${command.usage}`);
  }
}

export function requireString(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== "string" || value === "") throw new UsageError(`--${name} is required`);
  return value;
}

export function stringList(values: Record<string, unknown>, name: string): string[] {
  const value = values[name];
  if (value === undefined) return [];
  return Array.isArray(value) ? (value as string[]) : [value as string];
}

export function parseJsonFlag(name: string, text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--${name} is not valid JSON: ${(error as Error).message}`);
  }
}

/** `k=v,k2=v2` → {k: v, k2: v2}. */
export function parseKeyValues(name: string, text: string | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  if (!text) return result;
  for (const pair of text.split(",")) {
    const at = pair.indexOf("=");
    if (at <= 0) throw new UsageError(`--${name}: expected key=value, got '${pair}'`);
    result[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return result;
}

/** `--NAME HOST:PORT` (`[IPv6]:PORT`; `:PORT` listens on `defaultHost`), read by the kernel's one parser. */
export function addressFlag(name: string, text: string, defaultHost: string): { host: string; port: number } {
  try {
    return parseHostPort(text, defaultHost);
  } catch (error) {
    throw new UsageError(`--${name}: ${(error as Error).message}`);
  }
}
