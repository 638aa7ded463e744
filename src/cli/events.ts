import { readFileSync } from "node:fs";
import type { Dispatcher } from "undici";
import { formatTable } from "../kernel/table.ts";
import { toolCallEventTypes } from "../state/events-query.ts";
import type { ForwardedServer } from "../state/kubeconfig-server.ts";
import type { StoredAuditEvent } from "../state/types.ts";
import { type Command, UsageError } from "./args.ts";

/** Where the controller's audit API is and how to ask it. */
export interface EventsClientOptions {
  server: string;
  token?: string;
  params: Record<string, string>;
  /** Trusts this CA (PEM) for an https server, e.g. the controller's own. */
  ca?: string;
}

let dispatchers: Map<string, Dispatcher> | undefined;

async function dispatcherFor(ca: string): Promise<Dispatcher> {
  dispatchers ??= new Map();
  let dispatcher = dispatchers.get(ca);
  if (!dispatcher) {
    const { Agent } = await import("undici");
    dispatcher = new Agent({ connect: { ca } });
    dispatchers.set(ca, dispatcher);
  }
  return dispatcher;
}

export async function fetchEvents(options: EventsClientOptions, after?: string): Promise<StoredAuditEvent[]> {
  const url = new URL("/v1/events", options.server);
  for (const [name, value] of Object.entries(options.params)) url.searchParams.set(name, value);
  if (after !== undefined) {
    url.searchParams.set("after", after);
    url.searchParams.delete("since");
  }
  const init = {
    headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
    signal: AbortSignal.timeout(10_000),
  };
  let response: Response;
  try {
    response = (
      options.ca !== undefined
        ? await (await import("undici")).fetch(url, { ...init, dispatcher: await dispatcherFor(options.ca) })
        : await fetch(url, init)
    ) as Response;
  } catch (error) {
    // fetch says only "fetch failed"; the cause names the problem (refused, certificate, timeout).
    const cause = (error as Error & { cause?: Error }).cause;
    throw new Error(`${url.origin}: ${cause?.message ?? (error as Error).message}`);
  }
  const body = (await response.json().catch(() => ({}))) as { events?: StoredAuditEvent[]; error?: string };
  if (!response.ok)
    throw new Error(`${url.origin}: HTTP ${response.status}: ${body.error ?? response.statusText}`);
  return body.events ?? [];
}

export type Column = [header: string, value: (e: StoredAuditEvent) => string];

const field =
  (name: string) =>
  (e: StoredAuditEvent): string => {
    const value = e.event[name];
    return value === undefined || value === null ? "" : String(value);
  };

const eventColumns: Column[] = [
  ["TIME", field("timestamp")],
  ["NAMESPACE", field("namespace")],
  ["POD", field("pod")],
  ["TYPE", field("type")],
  ["SERVER", field("server")],
  ["TOOL", field("tool")],
  ["ACTION", field("action")],
  ["REASON", field("reason")],
];

const callColumns: Column[] = [
  ["TIME", field("timestamp")],
  ["NAMESPACE", field("namespace")],
  ["POD", field("pod")],
  ["SERVER", field("server")],
  ["TOOL", field("tool")],
  ["ACTION", field("action")],
  ["RULE", field("rule")],
  ["REASON", field("reason")],
];

const maxCellWidth = 60;

/** Oldest first, columns padded to the widest cell (capped), kubectl style. */
function eventTable(events: StoredAuditEvent[], columns: Column[], header: boolean): string {
  const rows = events.map((e) => columns.map(([, value]) => value(e)));
  return formatTable(header ? [columns.map(([h]) => h), ...rows] : rows, { maxWidth: maxCellWidth });
}

const sharedOptions = {
  server: { type: "string" },
  token: { type: "string" },
  ca: { type: "string" },
  namespace: { type: "string", short: "n" },
  "mcp-server": { type: "string" },
  tool: { type: "string" },
  action: { type: "string" },
  since: { type: "string" },
  limit: { type: "string" },
  output: { type: "string", short: "o" },
  follow: { type: "boolean", short: "f" },
  interval: { type: "string" },
} as const;

const sharedUsage = `Options:
  --server URL         the controller's audit API (default: $TOOLWALL_SERVER, else the controller in
                       $TOOLWALL_NAMESPACE (toolwall-system) through the kubeconfig, as kubectl port-forward)
  --token TOKEN        bearer token (default: $TOOLWALL_TOKEN)
  --ca FILE            CA certificate (PEM) to trust for an https --server
  -n, --namespace NS   one namespace (default: all)
  --mcp-server NAME    only this MCP server
  --tool NAME          only this tool
  --action A           allow or deny
  --since WHEN         15m, an RFC 3339 time or epoch milliseconds
  --limit N            most events printed before following (default 50)
  -o, --output FMT     table (default) or json (one event a line)
  -f, --follow         keep printing new events
  --interval MS        how often --follow asks (default 1000)`;

async function runEvents(
  values: Record<string, unknown>,
  columns: Column[],
  types?: string,
): Promise<number> {
  let server = (values.server as string | undefined) ?? process.env.TOOLWALL_SERVER;
  let forwarded: ForwardedServer | undefined;
  try {
    if (!server) {
      const { controllerThroughKubeconfig } = await import("../state/kubeconfig-server.ts");
      forwarded = await controllerThroughKubeconfig();
      server = forwarded.server;
    }
    return await printEvents(values, columns, types, server, forwarded?.token);
  } catch (error) {
    // Reaching the cluster or the audit API failed: the message names the problem, no stack trace.
    if (error instanceof UsageError) throw error;
    throw new UsageError((error as Error).message);
  } finally {
    forwarded?.close();
  }
}

async function printEvents(
  values: Record<string, unknown>,
  columns: Column[],
  types: string | undefined,
  server: string,
  forwardedToken: string | undefined,
): Promise<number> {
  if (!/^https?:\/\//.test(server))
    throw new UsageError(`--server: expected an http(s) URL, got '${server}'`);
  const output = (values.output as string | undefined) ?? "table";
  if (output !== "table" && output !== "json")
    throw new UsageError(`--output: table or json, got '${output}'`);
  const interval = Number(values.interval ?? 1000);
  if (!Number.isInteger(interval) || interval < 100) throw new UsageError("--interval: at least 100 (ms)");
  const params: Record<string, string> = { limit: (values.limit as string | undefined) ?? "50" };
  const map: [string, string][] = [
    ["namespace", "namespace"],
    ["mcp-server", "server"],
    ["tool", "tool"],
    ["action", "action"],
    ["since", "since"],
    ["type", "type"],
  ];
  for (const [flag, param] of map)
    if (typeof values[flag] === "string") params[param] = values[flag] as string;
  if (types !== undefined) params["type"] = types;
  const token = (values.token as string | undefined) ?? process.env.TOOLWALL_TOKEN ?? forwardedToken;
  let ca: string | undefined;
  if (typeof values.ca === "string") {
    try {
      ca = readFileSync(values.ca, "utf8");
    } catch (error) {
      throw new UsageError(`--ca: ${(error as Error).message}`);
    }
  }
  const client: EventsClientOptions = { server, params, ...(token ? { token } : {}), ...(ca ? { ca } : {}) };

  const print = (events: StoredAuditEvent[], header: boolean) => {
    if (events.length === 0) return;
    const text =
      output === "json"
        ? events.map((e) => JSON.stringify({ id: e.id, ...e.event })).join("\n")
        : eventTable(events, columns, header);
    process.stdout.write(`${text}\n`);
  };

  const first = (await fetchEvents(client)).reverse();
  print(first, true);
  if (!values.follow) return 0;
  let cursor = first.at(-1)?.id ?? `${Date.now()}-0`;
  let printedHeader = first.length > 0;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, interval));
    const fresh = (await fetchEvents(client, cursor)).reverse();
    if (fresh.length === 0) continue;
    print(fresh, !printedHeader);
    printedHeader = true;
    cursor = fresh.at(-1)!.id;
  }
}

export const eventsCommand: Command = {
  path: ["events"],
  summary: "print audit events from the controller (also: kubectl toolwall events)",
  usage: `Usage: toolwall events [--type T1,T2] [options]

Prints the recent audit events of the agents' pods, oldest first.

  --type TYPES         comma-separated event types (mcp_tool_called, mcp_cross_server_blocked, …)
${sharedUsage}`,
  options: { ...sharedOptions, type: { type: "string" } },
  run: (values) => runEvents(values, eventColumns),
};

export const callsCommand: Command = {
  path: ["calls"],
  summary: "print recent tool calls and their decisions (also: kubectl toolwall calls)",
  usage: `Usage: toolwall calls [options]

Prints the recent tool calls (native and MCP) with the decision taken, oldest first.

${sharedUsage}`,
  options: sharedOptions,
  run: (values) => runEvents(values, callColumns, toolCallEventTypes.join(",")),
};
