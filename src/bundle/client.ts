import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Agent, fetch as undiciFetch } from "undici";
import { parseDuration } from "../kernel/duration.ts";
import { PolicySet } from "../policy/evaluate.ts";
import type { AuditSink } from "../telemetry/audit.ts";
import { bundleAge } from "../telemetry/metrics.ts";
import { type Bundle, verifyBundle } from "./bundle.ts";
import { expiredPolicySet, type PolicySource } from "./source.ts";

export interface BundleClientOptions {
  /** Base URL of the controller, e.g. https://toolwall-controller.toolwall.svc:8443 */
  controllerUrl: string;
  namespace: string;
  pod: string;
  /** Projected service-account token (audience toolwall); re-read before every request, the kubelet rotates it. */
  tokenFile: string;
  /** Where the last good bundle is kept (an emptyDir survives sidecar restarts). */
  bundleDir: string;
  audit: AuditSink;
  /** PEM CA certificate(s) the controller's HTTPS certificate must chain to (system roots when absent). */
  controllerCa?: string | undefined;
  /** Staleness limit when no policy applies (each policy's spec.maxStaleness otherwise; the smallest wins). */
  defaultMaxStalenessMs?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Client-side limit of one long-poll; must exceed the controller's wait. */
  requestTimeoutMs?: number;
  log?: (message: string) => void;
  now?: () => number;
}

interface StoredBundle {
  bundle: Bundle;
  /** Epoch ms when the controller last confirmed this bundle (200 or 304). */
  confirmedAt: number;
}

const bundleFile = "bundle.json";

/** Exponential backoff with full jitter: uniform in [0, min(max, base·2^attempt)]. */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  return random() * Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
}

function maxStalenessOf(bundle: Bundle, fallbackMs: number): number {
  const limits = bundle.policies.map((p) => parseDuration(p.spec.maxStaleness ?? "10m"));
  return limits.length > 0 ? Math.min(...limits) : fallbackMs;
}

/**
 * The sidecar's side of bundle distribution: long-polls the controller, keeps the last good bundle
 * on disk, and is a PolicySource for the proxy pipeline. Until a bundle is loaded, and once the
 * bundle's maxStaleness has passed without contact, every call is denied ("policy expired").
 */
export class BundleClient implements PolicySource {
  readonly #options: Required<Omit<BundleClientOptions, "log" | "now" | "controllerCa">> &
    Pick<BundleClientOptions, "log">;
  readonly #dispatcher: Agent | undefined;
  readonly #now: () => number;
  readonly #expiredSet: PolicySet;
  readonly #listeners = new Set<(bundle: Bundle) => void>();
  #bundle: Bundle | undefined;
  #set: PolicySet | undefined;
  #confirmedAt = 0;
  #maxStalenessMs = 0;
  #running = false;
  #abort: AbortController | undefined;
  #sleepTimer: NodeJS.Timeout | undefined;
  #wakeSleep: (() => void) | undefined;
  #ageTimer: NodeJS.Timeout | undefined;
  #loop: Promise<void> | undefined;

  constructor(options: BundleClientOptions) {
    this.#options = {
      defaultMaxStalenessMs: 600_000,
      backoffBaseMs: 250,
      backoffMaxMs: 30_000,
      requestTimeoutMs: 60_000,
      ...options,
    };
    this.#now = options.now ?? Date.now;
    this.#expiredSet = expiredPolicySet(options.namespace);
    this.#dispatcher = options.controllerCa
      ? new Agent({ connect: { ca: options.controllerCa } })
      : undefined;
  }

  /** Loads the bundle kept on disk (if any and still valid), then starts long-polling. */
  async start(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    await this.#loadFromDisk();
    this.#ageTimer = setInterval(() => this.#updateAge(), 1000);
    this.#ageTimer.unref();
    this.#loop = this.#pollLoop();
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.#abort?.abort();
    if (this.#sleepTimer) clearTimeout(this.#sleepTimer);
    this.#wakeSleep?.();
    if (this.#ageTimer) clearInterval(this.#ageTimer);
    await this.#loop;
    await this.#dispatcher?.close();
  }

  /** True once a bundle is loaded (from the controller or from disk): the sidecar's readiness. */
  ready(): boolean {
    return this.#bundle !== undefined;
  }

  expired(): boolean {
    return this.#bundle === undefined || this.#now() - this.#confirmedAt > this.#maxStalenessMs;
  }

  current(): PolicySet {
    return this.expired() || !this.#set ? this.#expiredSet : this.#set;
  }

  bundle(): Bundle | undefined {
    return this.#bundle;
  }

  /** Seconds since the controller last confirmed the bundle in force (Infinity before the first). */
  ageSeconds(): number {
    return this.#bundle ? (this.#now() - this.#confirmedAt) / 1000 : Number.POSITIVE_INFINITY;
  }

  onBundle(listener: (bundle: Bundle) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Resolves when a bundle is loaded (at once if one is). */
  whenReady(): Promise<void> {
    if (this.ready()) return Promise.resolve();
    return new Promise((resolve) => {
      const off = this.onBundle(() => {
        off();
        resolve();
      });
    });
  }

  #updateAge(): void {
    if (this.#bundle) bundleAge.set(this.ageSeconds());
  }

  async #loadFromDisk(): Promise<void> {
    let stored: StoredBundle;
    try {
      stored = JSON.parse(await readFile(join(this.#options.bundleDir, bundleFile), "utf8")) as StoredBundle;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
        this.#options.log?.(`bundle on disk unreadable, ignored: ${(error as Error).message}`);
      }
      return;
    }
    try {
      this.#apply(stored.bundle, Number(stored.confirmedAt) || 0, "disk");
    } catch (error) {
      this.#options.log?.(`bundle on disk rejected: ${(error as Error).message}`);
    }
  }

  #apply(value: unknown, confirmedAt: number, source: "controller" | "disk"): void {
    const { namespace, pod } = this.#options;
    const { bundle, documents } = verifyBundle(value, { namespace, pod });
    const set = PolicySet.fromDocuments(documents);
    this.#maxStalenessMs = maxStalenessOf(bundle, this.#options.defaultMaxStalenessMs);
    this.#bundle = bundle;
    this.#set = set;
    this.#confirmedAt = confirmedAt;
    this.#updateAge();
    this.#options.audit.emit({
      type: "policy_bundle_applied",
      namespace,
      pod,
      hash: bundle.hash,
      policies: bundle.policies.map((p) => `${p.namespace}/${p.name}@${p.generation}`),
      source,
      expired: this.expired(),
    });
    for (const listener of [...this.#listeners]) listener(bundle);
  }

  async #persist(): Promise<void> {
    if (!this.#bundle) return;
    const { bundleDir } = this.#options;
    const stored: StoredBundle = { bundle: this.#bundle, confirmedAt: this.#confirmedAt };
    await mkdir(bundleDir, { recursive: true });
    const temporary = join(bundleDir, `.${bundleFile}.${process.pid}.tmp`);
    await writeFile(temporary, JSON.stringify(stored), { mode: 0o600 });
    await rename(temporary, join(bundleDir, bundleFile));
  }

  async #pollLoop(): Promise<void> {
    let failures = 0;
    while (this.#running) {
      try {
        await this.#pollOnce();
        failures = 0;
      } catch (error) {
        if (!this.#running) break;
        failures += 1;
        this.#options.log?.(`bundle fetch failed (attempt ${failures}): ${(error as Error).message}`);
        await this.#sleep(backoffDelay(failures, this.#options.backoffBaseMs, this.#options.backoffMaxMs));
      }
    }
  }

  async #pollOnce(): Promise<void> {
    const { controllerUrl, namespace, pod, tokenFile, requestTimeoutMs } = this.#options;
    const token = (await readFile(tokenFile, "utf8")).trim();
    const url = new URL("/v1/bundle", controllerUrl);
    url.searchParams.set("namespace", namespace);
    url.searchParams.set("pod", pod);
    if (this.#bundle) {
      url.searchParams.set("since", this.#bundle.hash);
      // Be confirmed well before maxStaleness: the controller's long-poll (30 s) may be longer. An
      // expired bundle (e.g. restored from disk after a restart) is confirmed at once.
      const waitMs = this.expired() ? 100 : Math.max(100, Math.floor(this.#maxStalenessMs / 3));
      url.searchParams.set("wait", String(waitMs));
    }
    this.#abort = new AbortController();
    const signal = AbortSignal.any([this.#abort.signal, AbortSignal.timeout(requestTimeoutMs)]);
    const response = await undiciFetch(url, {
      headers: { authorization: `Bearer ${token}` },
      signal,
      ...(this.#dispatcher ? { dispatcher: this.#dispatcher } : {}),
    });
    if (response.status === 304) {
      await response.body?.cancel();
      this.#confirmedAt = this.#now();
      this.#updateAge();
      await this.#persist();
      return;
    }
    if (response.status !== 200) {
      const text = (await response.text()).slice(0, 500);
      throw new Error(`controller answered ${response.status}: ${text}`);
    }
    const value: unknown = await response.json();
    this.#apply(value, this.#now(), "controller");
    await this.#persist();
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.#wakeSleep = resolve;
      this.#sleepTimer = setTimeout(resolve, ms);
    });
  }
}
