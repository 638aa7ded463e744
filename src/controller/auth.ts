import { createHash } from "node:crypto";
import { CappedMap } from "../kernel/bounded-map.ts";
import { tokenReviews } from "./metrics.ts";
import type { PodInfo } from "./model.ts";

/** The service account and pod a projected token is bound to, as TokenReview reports them. */
export interface TokenIdentity {
  namespace: string;
  serviceAccount: string;
  podName: string;
  podUid: string;
}

/** The parts of a TokenReview status the controller reads. */
export interface TokenReviewStatus {
  authenticated?: boolean;
  audiences?: string[];
  error?: string;
  user?: { username?: string; extra?: Record<string, string[]> };
}

export type AuthResult = { ok: true; identity: TokenIdentity } | { ok: false; message: string };

const serviceAccountPrefix = "system:serviceaccount:";
const podNameKey = "authentication.kubernetes.io/pod-name";
const podUidKey = "authentication.kubernetes.io/pod-uid";

/** Reads a TokenReview answer: authenticated, for our audience, a service account, bound to a pod. */
export function identityFromReview(status: TokenReviewStatus, audience: string): AuthResult {
  if (!status.authenticated)
    return { ok: false, message: `token rejected: ${status.error || "not authenticated"}` };
  if (!status.audiences?.includes(audience))
    return { ok: false, message: `token is not for audience ${audience}` };
  const username = status.user?.username ?? "";
  if (!username.startsWith(serviceAccountPrefix))
    return { ok: false, message: "token is not a service-account token" };
  const [namespace, serviceAccount] = username.slice(serviceAccountPrefix.length).split(":");
  const podName = status.user?.extra?.[podNameKey]?.[0];
  const podUid = status.user?.extra?.[podUidKey]?.[0];
  if (!namespace || !serviceAccount || !podName || !podUid) {
    return { ok: false, message: "token is not bound to a pod (use a projected service-account token)" };
  }
  return { ok: true, identity: { namespace, serviceAccount, podName, podUid } };
}

/** Why `identity` may not have the bundle of `pod` in `namespace`; undefined when it may. */
export function bundleAccessDenied(
  identity: TokenIdentity,
  namespace: string,
  podName: string,
  pod: PodInfo | undefined,
): string | undefined {
  if (identity.namespace !== namespace || identity.podName !== podName) {
    return `token of pod ${identity.namespace}/${identity.podName} may not read the bundle of ${namespace}/${podName}`;
  }
  if (!pod) return `pod ${namespace}/${podName} not found`;
  if (pod.uid !== identity.podUid)
    return `token is bound to another pod named ${namespace}/${podName} (uid differs)`;
  if (pod.serviceAccount !== identity.serviceAccount) {
    return `token's service account ${identity.serviceAccount} is not the pod's (${pod.serviceAccount})`;
  }
  return undefined;
}

export interface TokenAuthenticatorOptions {
  review: (token: string, audiences: string[]) => Promise<TokenReviewStatus>;
  audience: string;
  /** How long an accepted token's identity is reused without asking the API server again. */
  ttlMs?: number;
  /** How long a rejected token stays rejected (keeps a misconfigured pod from flooding TokenReview). */
  negativeTtlMs?: number;
  maxEntries?: number;
  /**
   * TokenReviews in flight at once. A burst of sidecars (a controller restart, a rollout) would
   * otherwise open one API-server connection per token at the same moment.
   */
  maxConcurrent?: number;
  now?: () => number;
}

/** TokenReview with a short cache keyed by the token's hash; concurrent reviews of one token are shared. */
export class TokenAuthenticator {
  readonly #options: Required<Omit<TokenAuthenticatorOptions, "now">>;
  readonly #now: () => number;
  readonly #cache: CappedMap<string, { expires: number; result: AuthResult }>;
  readonly #inflight = new Map<string, Promise<AuthResult>>();
  readonly #queue: (() => void)[] = [];
  #active = 0;

  constructor(options: TokenAuthenticatorOptions) {
    this.#options = {
      ttlMs: 30_000,
      negativeTtlMs: 5_000,
      maxEntries: 20_000,
      maxConcurrent: 16,
      ...options,
    };
    this.#now = options.now ?? Date.now;
    this.#cache = new CappedMap(this.#options.maxEntries);
  }

  async authenticate(token: string): Promise<AuthResult> {
    const key = createHash("sha256").update(token).digest("base64url");
    const cached = this.#cache.get(key);
    if (cached && cached.expires > this.#now()) return cached.result;
    const pending = this.#inflight.get(key);
    if (pending) return pending;
    const review = this.#review(token, key).finally(() => this.#inflight.delete(key));
    this.#inflight.set(key, review);
    return review;
  }

  async #review(token: string, key: string): Promise<AuthResult> {
    const { audience, ttlMs, negativeTtlMs } = this.#options;
    let status: TokenReviewStatus;
    if (this.#active >= this.#options.maxConcurrent) {
      await new Promise<void>((resolve) => this.#queue.push(resolve));
    }
    this.#active += 1;
    try {
      status = await this.#options.review(token, [audience]);
    } catch (error) {
      tokenReviews.inc({ result: "error" });
      throw error;
    } finally {
      this.#active -= 1;
      this.#queue.shift()?.();
    }
    const result = identityFromReview(status, audience);
    tokenReviews.inc({ result: result.ok ? "authenticated" : "rejected" });
    this.#cache.set(key, { expires: this.#now() + (result.ok ? ttlMs : negativeTtlMs), result });
    return result;
  }
}
