import type { CoordinationV1Api, V1Lease } from "@kubernetes/client-node";
import { isLeader } from "./metrics.ts";

export interface LeaderElectorOptions {
  api: CoordinationV1Api;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs?: number;
  renewIntervalMs?: number;
  onChange?: (leader: boolean) => void;
  log?: (message: string) => void;
  now?: () => number;
}

/** RFC 3339 with microseconds, the form metav1.MicroTime parses. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

function statusCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === "number" ? code : undefined;
}

/**
 * Leader election on a coordination.k8s.io/v1 Lease, the way client-go does it: the holder renews
 * every `renewIntervalMs`; another replica takes the Lease over when it has seen no change of the
 * record for `leaseDurationMs` (its own clock, so clock skew between replicas does not matter), or
 * at once when the holder released it on a clean stop. Writes use the resourceVersion, so two
 * replicas cannot both win.
 */
export class LeaderElector {
  readonly #options: Required<Omit<LeaderElectorOptions, "onChange" | "log" | "now">> &
    Pick<LeaderElectorOptions, "onChange" | "log">;
  readonly #now: () => number;
  #leader = false;
  #lastRenewed = 0;
  #observedVersion = "";
  #observedAt = 0;
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #tick: Promise<void> = Promise.resolve();

  constructor(options: LeaderElectorOptions) {
    this.#options = { leaseDurationMs: 15_000, renewIntervalMs: 2_000, ...options };
    this.#now = options.now ?? Date.now;
  }

  isLeader(): boolean {
    return this.#leader;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    const loop = () => {
      this.#tick = this.#attempt().finally(() => {
        if (this.#running) this.#timer = setTimeout(loop, this.#options.renewIntervalMs);
      });
    };
    loop();
  }

  /** Stops renewing; a leader releases the Lease so another replica takes over without waiting. */
  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    await this.#tick;
    if (!this.#leader) return;
    try {
      const lease = await this.#read();
      if (lease?.spec?.holderIdentity === this.#options.identity) {
        lease.spec.holderIdentity = "";
        lease.spec.leaseDurationSeconds = 1;
        lease.spec.renewTime = microTime(this.#now()) as unknown as Date;
        await this.#options.api.replaceNamespacedLease({
          name: this.#options.name,
          namespace: this.#options.namespace,
          body: lease,
        });
      }
    } catch (error) {
      this.#options.log?.(`lease release failed: ${(error as Error).message}`);
    }
    this.#setLeader(false);
  }

  #setLeader(leader: boolean): void {
    if (leader === this.#leader) return;
    this.#leader = leader;
    isLeader.set(leader ? 1 : 0);
    this.#options.log?.(leader ? `became leader (${this.#options.identity})` : "no longer leader");
    this.#options.onChange?.(leader);
  }

  async #read(): Promise<V1Lease | undefined> {
    try {
      return await this.#options.api.readNamespacedLease({
        name: this.#options.name,
        namespace: this.#options.namespace,
      });
    } catch (error) {
      if (statusCode(error) === 404) return undefined;
      throw error;
    }
  }

  async #attempt(): Promise<void> {
    const { api, name, namespace, identity, leaseDurationMs } = this.#options;
    const now = this.#now();
    try {
      const lease = await this.#read();
      const spec = {
        holderIdentity: identity,
        leaseDurationSeconds: Math.max(1, Math.ceil(leaseDurationMs / 1000)),
        renewTime: microTime(now) as unknown as Date,
      };
      if (!lease) {
        await api.createNamespacedLease({
          namespace,
          body: {
            metadata: { name, namespace },
            spec: { ...spec, acquireTime: spec.renewTime, leaseTransitions: 0 },
          },
        });
        this.#won(now);
        return;
      }
      const version = lease.metadata?.resourceVersion ?? "";
      if (version !== this.#observedVersion) {
        this.#observedVersion = version;
        this.#observedAt = now;
      }
      const holder = lease.spec?.holderIdentity ?? "";
      const heldByMe = holder === identity;
      const released = holder === "";
      const expired = now - this.#observedAt > leaseDurationMs;
      if (!heldByMe && !released && !expired) {
        this.#setLeader(false);
        return;
      }
      lease.spec = {
        ...lease.spec,
        ...spec,
        ...(heldByMe
          ? {}
          : { acquireTime: spec.renewTime, leaseTransitions: (lease.spec?.leaseTransitions ?? 0) + 1 }),
      };
      const written = await api.replaceNamespacedLease({ name, namespace, body: lease });
      this.#observedVersion = written.metadata?.resourceVersion ?? "";
      this.#observedAt = now;
      this.#won(now);
    } catch (error) {
      if (statusCode(error) !== 409)
        this.#options.log?.(`lease ${namespace}/${name}: ${(error as Error).message}`);
      if (this.#leader && this.#now() - this.#lastRenewed > leaseDurationMs) this.#setLeader(false);
      else if (!this.#leader) this.#setLeader(false);
    }
  }

  #won(now: number): void {
    this.#lastRenewed = now;
    this.#setLeader(true);
  }
}
