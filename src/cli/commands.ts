import type { Command } from "./args.ts";
import { controllerCommand } from "./controller.ts";
import { demoCommands } from "./demo.ts";
import { callsCommand, eventsCommand } from "./events.ts";
import { initCommand } from "./init.ts";
import { policyCommands } from "./policy.ts";
import { proxyCommands } from "./proxy.ts";
import { scanCommand } from "./scan.ts";
import { sidecarCommand } from "./sidecar.ts";
import { webhookCertsCommand, webhookCommand } from "./webhook.ts";

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
