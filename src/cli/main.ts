import { InputError } from "../kernel/errors.ts";
import { formatTable } from "../kernel/table.ts";
import { type Command, parseCommandArgs } from "./args.ts";
import { commands } from "./commands.ts";

function topLevelHelp(): string {
  const table = formatTable(commands.map((c) => [`toolwall ${c.path.join(" ")}`, c.summary]));
  return `toolwall — a Kubernetes-native firewall for AI agents\n\nUsage:\n${table.replace(/^/gm, "  ")}\n\nRun 'toolwall <command> --help' for a command's flags.`;
}

function findCommand(argv: string[]): { command: Command; rest: string[] } | undefined {
  let best: Command | undefined;
  for (const command of commands) {
    const matches = command.path.every((word, i) => argv[i] === word);
    if (matches && (!best || command.path.length > best.path.length)) best = command;
  }
  return best && { command: best, rest: argv.slice(best.path.length) };
}

export async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === "--help" || argv[0] === "-h" || argv[0] === "help") {
    process.stdout.write(`${topLevelHelp()}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  const found = findCommand(argv);
  if (!found) {
    const group = commands.filter((c) => c.path[0] === argv[0]);
    if (group.length > 0 && (argv.length === 1 || argv[1]?.startsWith("-"))) {
      process.stdout.write(`${group.map((c) => `toolwall ${c.path.join(" ")}  ${c.summary}`).join("\n")}\n`);
      return argv.includes("--help") || argv.includes("-h") ? 0 : 2;
    }
    process.stderr.write(`toolwall: unknown command '${argv.join(" ")}'\n\n${topLevelHelp()}\n`);
    return 2;
  }
  const { command, rest } = found;
  try {
    const { values, positionals } = parseCommandArgs(command, rest);
    if (values.help) {
      process.stdout.write(`${command.usage}\n`);
      return 0;
    }
    return await command.run(values, positionals);
  } catch (error) {
    if (error instanceof InputError) {
      process.stderr.write(`toolwall ${command.path.join(" ")}: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(`toolwall ${command.path.join(" ")}: ${(error as Error).stack ?? error}\n`);
    return 2;
  }
}
