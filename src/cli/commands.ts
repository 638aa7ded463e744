import { controllerCommand } from "../controller/command.ts";
import { demoCommands } from "../demo/command.ts";
import { initCommand } from "../init/command.ts";
import { scanCommand } from "../inspect/scan-command.ts";
import { proxyCommands } from "../proxy/command.ts";
import { callsCommand, eventsCommand } from "../state/events-command.ts";
import { sidecarCommand } from "../transparent/command.ts";
import { webhookCertsCommand, webhookCommand } from "../webhook/command.ts";
import type { Command } from "./args.ts";
import { policyCommands } from "./policy.ts";

/**
 * Every `toolwall` subcommand. Each lives in its own module and is listed here once; heavy modules
 * are imported inside `run` so `toolwall --help` stays fast.
 */
export const commands: Command[] = [
  ...policyCommands,
  webhookCommand,
  webhookCertsCommand,
  initCommand,
  sidecarCommand,
  scanCommand,
  eventsCommand,
  callsCommand,
  ...proxyCommands,
  ...demoCommands,
  controllerCommand,
];
