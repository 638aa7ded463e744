import { callsCommand, eventsCommand } from "../state/events-command.ts";
import type { Command } from "./args.ts";

/**
 * Every `toolwall` subcommand. Each lives in its own module under src/<area>/ or src/cli/ and is
 * listed here once; heavy modules are imported inside `run` so `toolwall --help` stays fast.
 */
export const commands: Command[] = [eventsCommand, callsCommand];
