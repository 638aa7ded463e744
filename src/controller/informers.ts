import type { Informer, KubernetesObject, ObjectCache } from "@kubernetes/client-node";
import { backoffDelay } from "../bundle/client.ts";
import { informerRestarts } from "./metrics.ts";

export interface ResilientInformerOptions<T extends KubernetesObject> {
  resource: string;
  create: () => Informer<T> & ObjectCache<T>;
  onChange: () => void;
  /** A fresh list this often, even when the watch looks healthy (watches can stall silently). */
  resyncMs: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  log?: (message: string) => void;
}

/**
 * An informer that does not stay down: client-node stops an informer on most errors, so on an error
 * a new one is started after a jittered backoff; every `resyncMs` a new one relists. The old cache
 * keeps serving until the new one has listed.
 */
export class ResilientInformer<T extends KubernetesObject> {
  readonly #options: ResilientInformerOptions<T>;
  #current: (Informer<T> & ObjectCache<T>) | undefined;
  #failures = 0;
  #stopped = false;
  #retryTimer: NodeJS.Timeout | undefined;
  #resyncTimer: NodeJS.Timeout | undefined;
  #connecting = false;
  #wake: (() => void) | undefined;

  constructor(options: ResilientInformerOptions<T>) {
    this.#options = options;
  }

  /** Resolves after the first successful list. */
  async start(): Promise<void> {
    this.#stopped = false;
    await this.#connectUntilListed();
    if (this.#stopped) return;
    this.#resyncTimer = setInterval(() => void this.#connect(), this.#options.resyncMs);
    this.#resyncTimer.unref();
  }

  async #connectUntilListed(): Promise<void> {
    while (!this.#stopped && !(await this.#connect())) {
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        this.#retryTimer = setTimeout(resolve, this.#delay());
      });
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#retryTimer);
    clearInterval(this.#resyncTimer);
    this.#wake?.();
    const current = this.#current;
    this.#current = undefined;
    await current?.stop();
  }

  synced(): boolean {
    return this.#current !== undefined;
  }

  list(): readonly T[] {
    return this.#current?.list() ?? [];
  }

  get(name: string, namespace?: string): T | undefined {
    return this.#current?.get(name, namespace);
  }

  #delay(): number {
    return backoffDelay(
      this.#failures,
      this.#options.backoffBaseMs ?? 500,
      this.#options.backoffMaxMs ?? 30_000,
    );
  }

  async #connect(): Promise<boolean> {
    if (this.#connecting || this.#stopped) return false;
    this.#connecting = true;
    const informer = this.#options.create();
    let startError: unknown;
    let starting = true;
    const changed = () => {
      if (informer === this.#current) this.#options.onChange();
    };
    informer.on("add", changed);
    informer.on("update", changed);
    informer.on("delete", changed);
    informer.on("error", (error: unknown) => {
      if (starting) {
        startError = error ?? new Error("informer failed");
        return;
      }
      if (informer === this.#current) this.#restartAfterError(error);
    });
    try {
      await informer.start();
    } catch (error) {
      startError = error;
    } finally {
      starting = false;
      this.#connecting = false;
    }
    if (startError !== undefined || this.#stopped) {
      await informer.stop().catch(() => undefined);
      if (startError !== undefined) {
        this.#failures += 1;
        informerRestarts.inc({ resource: this.#options.resource });
        this.#options.log?.(`${this.#options.resource} informer: list failed: ${describe(startError)}`);
      }
      return false;
    }
    const previous = this.#current;
    this.#current = informer;
    this.#failures = 0;
    await previous?.stop().catch(() => undefined);
    this.#options.onChange();
    return true;
  }

  #restartAfterError(error: unknown): void {
    this.#failures += 1;
    informerRestarts.inc({ resource: this.#options.resource });
    this.#options.log?.(`${this.#options.resource} informer: watch failed, restarting: ${describe(error)}`);
    clearTimeout(this.#retryTimer);
    this.#retryTimer = setTimeout(() => void this.#connectUntilListed(), this.#delay());
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
