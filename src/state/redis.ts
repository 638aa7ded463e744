import { randomBytes } from "node:crypto";
import { Cluster, Redis, type RedisOptions } from "ioredis";
import type { CallRecord, SessionState, ShadowedTool, ToolCategory } from "../analyzer/types.ts";
import { splitHostPort } from "../kernel/host-port.ts";
import { compareStreamIds, matchesAuditQuery } from "./audit-query.ts";
import type {
  AuditQuery,
  CheckAndRecordInput,
  PinResult,
  RateLimitOutcome,
  StampedAuditEvent,
  StateStore,
  StoredAuditEvent,
  ToolProvider,
} from "./types.ts";

/**
 * GCRA over every charge (all or nothing: a token is spent only when no enforced limit is over), then
 * the call is appended to the session window, which is trimmed by age and count and expires by itself.
 * The clock is Redis's own so that pods with skewed clocks share one limit.
 * KEYS: window, rate keys…  ARGV: retentionMs, maxEntries, memberIfAllowed, memberIfDenied, at, n,
 * then perMinute, burst, enforce for each charge.
 */
const checkAndRecordLua = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n = tonumber(ARGV[6])
local exceeded = {}
local blocked = 0
local tats = {}
for i = 1, n do
  local base = 6 + (i - 1) * 3
  local interval = 60000 / tonumber(ARGV[base + 1])
  local burst = tonumber(ARGV[base + 2])
  local stored = tonumber(redis.call('GET', KEYS[i + 1]))
  local tat = math.max(stored or now, now) + interval
  local allowAt = tat - interval * burst
  if allowAt > now then
    exceeded[#exceeded + 1] = i
    exceeded[#exceeded + 1] = math.ceil(allowAt - now)
    if ARGV[base + 3] == '1' then blocked = 1 end
    tats[i] = false
  else
    tats[i] = tat
  end
end
if blocked == 0 then
  for i = 1, n do
    if tats[i] then
      redis.call('SET', KEYS[i + 1], string.format('%.3f', tats[i]), 'PX', math.max(1, math.ceil(tats[i] - now)))
    end
  end
end
local retention = tonumber(ARGV[1])
if retention > 0 then
  local at = tonumber(ARGV[5])
  local member = ARGV[3]
  if blocked == 1 then member = ARGV[4] end
  redis.call('ZADD', KEYS[1], at, member)
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. string.format('%d', at - retention))
  local excess = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[2])
  if excess > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, excess - 1) end
  redis.call('PEXPIRE', KEYS[1], retention)
end
return {blocked, exceeded}
`;

/** KEYS: providers hash, shadows hash. ARGV: ttlMs, then tool, server pairs. Returns the shadows hash. */
const noteToolProvidersLua = `
for i = 2, #ARGV, 2 do
  local tool, server = ARGV[i], ARGV[i + 1]
  if redis.call('HSETNX', KEYS[1], tool, server) == 0 then
    local original = redis.call('HGET', KEYS[1], tool)
    if original ~= server then redis.call('HSET', KEYS[2], tool, original .. '\\n' .. server) end
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[1]) end
return redis.call('HGETALL', KEYS[2])
`;

/** KEYS: pins hash. ARGV: key, sha pairs. Returns created flag and pinned value per pair. */
const pinIfAbsentLua = `
local out = {}
for i = 1, #ARGV, 2 do
  if redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1]) == 1 then
    out[#out + 1] = 1
    out[#out + 1] = ARGV[i + 1]
  else
    out[#out + 1] = 0
    out[#out + 1] = redis.call('HGET', KEYS[1], ARGV[i])
  end
end
return out
`;

type ScriptedClient = (Redis | Cluster) & {
  toolwallCheckAndRecord(...args: (string | number)[]): Promise<[number, number[]]>;
  toolwallNoteToolProviders(...args: (string | number)[]): Promise<string[]>;
  toolwallPinIfAbsent(...args: (string | number)[]): Promise<(string | number)[]>;
};

export interface RedisStoreOptions {
  /** Prefix of every key; the namespace follows as a hash tag. */
  keyPrefix?: string;
  /** XADD MAXLEN ~ per namespace stream. */
  auditMaxLen?: number;
  /** Events waiting to be written; beyond it the oldest are dropped (and counted). */
  auditQueueMax?: number;
  /** Writes are batched for this long (or until 256 events wait). */
  auditFlushMs?: number;
  sessionTtlMs?: number;
  onAuditDropped?: (count: number) => void;
  /** A background batch write failed (the events stay queued). */
  onAuditWriteError?: (error: Error) => void;
}

const namespacesSetSuffix = "audit-namespaces";

/** Shared state in Redis (standalone, Sentinel or Cluster): every key of a namespace is in one slot. */
export class RedisStore implements StateStore {
  readonly client: Redis | Cluster;
  readonly #scripted: ScriptedClient;
  readonly #prefix: string;
  readonly #auditMaxLen: number;
  readonly #auditQueueMax: number;
  readonly #auditFlushMs: number;
  readonly #sessionTtlMs: number;
  readonly #onAuditDropped: (count: number) => void;
  readonly #onAuditWriteError: (error: Error) => void;
  #auditQueue: { namespace: string; json: string }[] = [];
  #flushTimer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;
  /** After a failed write, background flushes wait until then instead of retrying on every event. */
  #retryAt = 0;
  #closed = false;

  constructor(client: Redis | Cluster, options: RedisStoreOptions = {}) {
    this.client = client;
    this.#prefix = options.keyPrefix ?? "tw";
    this.#auditMaxLen = options.auditMaxLen ?? 10_000;
    this.#auditQueueMax = options.auditQueueMax ?? 10_000;
    this.#auditFlushMs = options.auditFlushMs ?? 20;
    this.#sessionTtlMs = options.sessionTtlMs ?? 24 * 3600_000;
    this.#onAuditDropped = options.onAuditDropped ?? (() => {});
    this.#onAuditWriteError = options.onAuditWriteError ?? (() => {});
    client.defineCommand("toolwallCheckAndRecord", { lua: checkAndRecordLua });
    client.defineCommand("toolwallNoteToolProviders", { numberOfKeys: 2, lua: noteToolProvidersLua });
    client.defineCommand("toolwallPinIfAbsent", { numberOfKeys: 1, lua: pinIfAbsentLua });
    this.#scripted = client as ScriptedClient;
  }

  /** Audit events waiting to be written. */
  get auditBacklog(): number {
    return this.#auditQueue.length;
  }

  key(namespace: string, kind: string, rest?: string): string {
    if (namespace === "" || /[{}]/.test(namespace)) throw new Error(`invalid namespace '${namespace}'`);
    return rest === undefined
      ? `${this.#prefix}:{${namespace}}:${kind}`
      : `${this.#prefix}:{${namespace}}:${kind}:${rest}`;
  }

  async checkAndRecord(input: CheckAndRecordInput): Promise<RateLimitOutcome> {
    const { namespace, call, charges } = input;
    const keys = [
      this.key(namespace, "win", input.session),
      ...charges.map((c) => this.key(namespace, "rl", c.key)),
    ];
    const args: (string | number)[] = [
      input.windowRetentionMs,
      input.maxWindowEntries,
      encodeRecord(call),
      encodeRecord({ ...call, action: "deny" }),
      call.at,
      charges.length,
    ];
    for (const charge of charges) args.push(charge.perMinute, charge.burst, charge.enforce ? "1" : "0");
    const [blocked, flat] = await this.#scripted.toolwallCheckAndRecord(keys.length, ...keys, ...args);
    const exceeded: RateLimitOutcome["exceeded"] = [];
    for (let i = 0; i < flat.length; i += 2) {
      const charge = charges[(flat[i] as number) - 1]!;
      exceeded.push({
        key: charge.key,
        name: charge.name,
        enforce: charge.enforce,
        retryAfterMs: flat[i + 1] as number,
      });
    }
    return { blocked: blocked === 1, exceeded };
  }

  async loadSession(namespace: string, session: string, sinceMs: number): Promise<SessionState> {
    const results = await this.client
      .pipeline()
      .zrangebyscore(this.key(namespace, "win", session), sinceMs, "+inf")
      .hgetall(this.key(namespace, "shadow", session))
      .exec();
    if (!results) throw new Error("redis pipeline returned nothing");
    for (const [error] of results) if (error) throw error;
    const members = results[0]![1] as string[];
    const shadowHash = results[1]![1] as Record<string, string>;
    return {
      window: members.map(decodeRecord),
      shadows: Object.entries(shadowHash).map(([tool, value]) => decodeShadow(tool, value)),
    };
  }

  async noteToolProviders(
    namespace: string,
    session: string,
    providers: ToolProvider[],
  ): Promise<ShadowedTool[]> {
    const args: string[] = [];
    for (const { tool, server } of providers) args.push(tool.toLowerCase(), server);
    const flat = await this.#scripted.toolwallNoteToolProviders(
      this.key(namespace, "prov", session),
      this.key(namespace, "shadow", session),
      this.#sessionTtlMs,
      ...args,
    );
    const shadows: ShadowedTool[] = [];
    for (let i = 0; i < flat.length; i += 2) shadows.push(decodeShadow(flat[i]!, flat[i + 1]!));
    return shadows;
  }

  async recordServerTools(namespace: string, server: string, tools: readonly string[]): Promise<void> {
    const key = this.key(namespace, "tools");
    const listing = JSON.stringify(tools.map((tool) => tool.toLowerCase()));
    const results = await this.client
      .pipeline()
      .hset(key, server.toLowerCase(), listing)
      .pexpire(key, this.#sessionTtlMs)
      .exec();
    for (const [error] of results ?? []) if (error) throw error;
  }

  async serverTools(namespace: string): Promise<Record<string, string[]>> {
    const hash = await this.client.hgetall(this.key(namespace, "tools"));
    const listings: Record<string, string[]> = {};
    for (const [server, text] of Object.entries(hash)) {
      const tools: unknown = JSON.parse(text);
      if (Array.isArray(tools)) listings[server] = tools.filter((t): t is string => typeof t === "string");
    }
    return listings;
  }

  async pinIfAbsent(namespace: string, pins: { key: string; sha256: string }[]): Promise<PinResult[]> {
    if (pins.length === 0) return [];
    const args: string[] = [];
    for (const pin of pins) args.push(pin.key, pin.sha256);
    const flat = await this.#scripted.toolwallPinIfAbsent(this.key(namespace, "pins"), ...args);
    return pins.map((pin, i) => ({
      key: pin.key,
      created: flat[2 * i] === 1,
      pinned: String(flat[2 * i + 1]),
    }));
  }

  /** Verdicts are cluster-wide, not per namespace: one slot (`{judge}`) so MGET works on a cluster. */
  async getVerdicts(keys: string[]): Promise<(string | undefined)[]> {
    if (keys.length === 0) return [];
    const values = await this.client.mget(...keys.map((key) => `${this.#prefix}:{judge}:v:${key}`));
    return values.map((value) => value ?? undefined);
  }

  async claimVerdict(key: string, owner: string, ttlMs: number): Promise<boolean> {
    return (await this.client.set(`${this.#prefix}:{judge}:c:${key}`, owner, "PX", ttlMs, "NX")) === "OK";
  }

  async putVerdict(key: string, verdict: string, ttlMs: number): Promise<void> {
    await this.client.set(`${this.#prefix}:{judge}:v:${key}`, verdict, "PX", ttlMs);
  }

  async getPins(namespace: string): Promise<Record<string, string>> {
    return this.client.hgetall(this.key(namespace, "pins"));
  }

  appendAudit(namespace: string, event: StampedAuditEvent): void {
    if (this.#closed) return;
    this.key(namespace, "audit");
    this.#auditQueue.push({ namespace, json: JSON.stringify({ ...event, namespace }) });
    if (this.#auditQueue.length > this.#auditQueueMax) {
      const dropped = this.#auditQueue.length - this.#auditQueueMax;
      this.#auditQueue.splice(0, dropped);
      this.#onAuditDropped(dropped);
    }
    this.#scheduleFlush();
  }

  #scheduleFlush(): void {
    if (this.#flushTimer || this.#closed) return;
    const delay = Math.max(
      this.#retryAt - Date.now(),
      this.#auditQueue.length >= 256 ? 0 : this.#auditFlushMs,
    );
    this.#flushTimer = setTimeout(() => {
      this.#flushTimer = undefined;
      void this.flush().catch(this.#onAuditWriteError);
    }, delay);
    this.#flushTimer.unref();
  }

  /** Writes the queued audit events; on failure they stay queued (bounded) and the error is thrown. */
  async flush(): Promise<void> {
    if (this.#flushTimer) clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    if (this.#flushing) await this.#flushing.catch(() => {});
    if (this.#auditQueue.length === 0) return;
    const batch = this.#auditQueue;
    this.#auditQueue = [];
    this.#flushing = this.#write(batch);
    try {
      await this.#flushing;
    } catch (error) {
      this.#auditQueue = batch.concat(this.#auditQueue).slice(-this.#auditQueueMax);
      this.#retryAt = Date.now() + 1000;
      this.#scheduleFlush();
      throw error;
    } finally {
      this.#flushing = undefined;
    }
  }

  async #write(batch: { namespace: string; json: string }[]): Promise<void> {
    if (this.client.status !== "ready") throw new Error(`redis is ${this.client.status}`);
    const namespaces = new Set<string>();
    const byNamespace = new Map<string, string[]>();
    for (const { namespace, json } of batch) {
      namespaces.add(namespace);
      const list = byNamespace.get(namespace) ?? [];
      list.push(json);
      byNamespace.set(namespace, list);
    }
    // One pipeline per namespace keeps each within a single Cluster slot.
    const writes = [...byNamespace].map(([namespace, jsons]) => {
      const pipeline = this.client.pipeline();
      const streamKey = this.key(namespace, "audit");
      for (const json of jsons) pipeline.xadd(streamKey, "MAXLEN", "~", this.#auditMaxLen, "*", "e", json);
      return pipeline.exec();
    });
    writes.push(
      this.client
        .pipeline()
        .sadd(`${this.#prefix}:${namespacesSetSuffix}`, ...namespaces)
        .exec(),
    );
    for (const results of await Promise.all(writes)) {
      for (const [error] of results ?? []) if (error) throw error;
    }
  }

  async readAudit(query: AuditQuery): Promise<StoredAuditEvent[]> {
    const namespaces =
      query.namespace !== undefined
        ? [query.namespace]
        : await this.client.smembers(`${this.#prefix}:${namespacesSetSuffix}`);
    const perNamespace = await Promise.all(namespaces.map((ns) => this.#readStream(ns, query)));
    return perNamespace
      .flat()
      .sort((a, b) => compareStreamIds(b.id, a.id))
      .slice(0, query.limit);
  }

  async #readStream(namespace: string, query: AuditQuery): Promise<StoredAuditEvent[]> {
    const pageSize = Math.min(Math.max(query.limit * 2, 100), 1000);
    let start = query.since !== undefined ? `${Math.floor(query.since)}-0` : "-";
    if (query.after !== undefined && (start === "-" || compareStreamIds(query.after, start) >= 0)) {
      start = `(${query.after}`;
    }
    const matches: StoredAuditEvent[] = [];
    let end = "+";
    let scanned = 0;
    while (matches.length < query.limit && scanned < this.#auditMaxLen * 2) {
      const page = await this.client.xrevrange(this.key(namespace, "audit"), end, start, "COUNT", pageSize);
      for (const [id, fields] of page) {
        const event = parseAuditFields(fields);
        if (event && matchesAuditQuery(event, query)) matches.push({ id, event });
        if (matches.length >= query.limit) break;
      }
      scanned += page.length;
      if (page.length < pageSize) break;
      end = `(${page[page.length - 1]![0]}`;
    }
    return matches;
  }

  async ping(): Promise<void> {
    await this.client.ping();
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.flush().catch(() => {});
    clearTimeout(this.#flushTimer);
    this.client.disconnect();
  }
}

function parseAuditFields(fields: string[]): StampedAuditEvent | undefined {
  const at = fields.indexOf("e");
  if (at < 0 || at + 1 >= fields.length) return undefined;
  try {
    return JSON.parse(fields[at + 1]!) as StampedAuditEvent;
  } catch {
    return undefined;
  }
}

/** Compact array form; the nonce keeps two identical calls in one millisecond distinct members. */
function encodeRecord(record: CallRecord): string {
  return JSON.stringify([
    record.at,
    record.server,
    record.tool,
    record.requestId,
    record.category,
    record.action,
    randomBytes(4).toString("hex"),
  ]);
}

function decodeRecord(member: string): CallRecord {
  const [at, server, tool, requestId, category, action] = JSON.parse(member) as [
    number,
    string,
    string,
    string,
    ToolCategory,
    "allow" | "deny",
  ];
  return { at, server, tool, requestId, category, action };
}

function decodeShadow(tool: string, value: string): ShadowedTool {
  const newline = value.indexOf("\n");
  return { tool, originalServer: value.slice(0, newline), currentServer: value.slice(newline + 1) };
}

export interface RedisConnectOptions {
  /** Per-command timeout; the resilient wrapper enforces its own as well. */
  commandTimeoutMs?: number;
  connectTimeoutMs?: number;
}

export type RedisTarget =
  | { kind: "standalone"; url: string }
  | {
      kind: "sentinel";
      sentinels: { host: string; port: number }[];
      name: string;
      password?: string;
      db: number;
    }
  | { kind: "cluster"; nodes: { host: string; port: number }[]; password?: string };

/**
 * `redis://[:password@]host:port[/db]` (or `rediss://`), `redis+sentinel://[:password@]h1:p1,h2:p2/master[/db]`,
 * `redis+cluster://[:password@]h1:p1,h2:p2`.
 */
export function parseRedisUrl(url: string): RedisTarget {
  const match = /^(redis|rediss|redis\+sentinel|redis\+cluster):\/\/(?:([^@/]*)@)?([^/?#]+)(\/[^?#]*)?$/.exec(
    url,
  );
  if (!match) {
    throw new Error(
      `invalid Redis URL '${url}': expected redis://host:port, redis+sentinel://h:p,h:p/master or redis+cluster://h:p,h:p`,
    );
  }
  const [, scheme, auth, hostList, path] = match as unknown as [
    string,
    string,
    string | undefined,
    string,
    string?,
  ];
  if (scheme === "redis" || scheme === "rediss") return { kind: "standalone", url };
  const password = auth ? decodeURIComponent(auth.slice(auth.indexOf(":") + 1)) : undefined;
  const hosts = hostList.split(",").map((entry) => {
    const parts = splitHostPort(entry);
    if (!parts?.host) throw new Error(`invalid host '${entry}' in Redis URL '${url}'`);
    return { host: parts.host, port: parts.port ?? (scheme === "redis+sentinel" ? 26379 : 6379) };
  });
  const withPassword = password !== undefined ? { password } : {};
  if (scheme === "redis+cluster") return { kind: "cluster", nodes: hosts, ...withPassword };
  const [, name, db] = (path ?? "").split("/");
  if (!name) throw new Error(`Redis Sentinel URL '${url}' names no master (…/mymaster)`);
  return { kind: "sentinel", sentinels: hosts, name, db: db ? Number(db) : 0, ...withPassword };
}

/**
 * A client that never queues commands while disconnected (they fail at once and the caller falls
 * back) and reconnects forever in the background.
 */
export function connectRedis(url: string, options: RedisConnectOptions = {}): Redis | Cluster {
  const common: RedisOptions = {
    commandTimeout: options.commandTimeoutMs ?? 1000,
    connectTimeout: options.connectTimeoutMs ?? 2000,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // Commands issued in the same tick share one write: 64 concurrent decisions cost a few syscalls, not 64.
    enableAutoPipelining: true,
    retryStrategy: (times: number) => Math.min(50 * 2 ** Math.min(times, 6), 2000),
  };
  const target = parseRedisUrl(url);
  const client =
    target.kind === "standalone"
      ? new Redis(target.url, common)
      : target.kind === "sentinel"
        ? new Redis({
            ...common,
            sentinels: target.sentinels,
            name: target.name,
            db: target.db,
            ...(target.password !== undefined ? { password: target.password } : {}),
          })
        : new Cluster(target.nodes, {
            enableOfflineQueue: false,
            enableAutoPipelining: true,
            clusterRetryStrategy: (times: number) => Math.min(50 * 2 ** Math.min(times, 6), 2000),
            redisOptions: {
              ...common,
              ...(target.password !== undefined ? { password: target.password } : {}),
            },
          });
  // Errors surface through the failed commands; without a listener ioredis would log each retry.
  client.on("error", () => {});
  return client;
}
