import {
  type Bundle,
  type BundlePolicy,
  comparePolicies,
  hashOfCanonicalPolicies,
} from "../bundle/bundle.ts";
import { canonicalJson } from "../kernel/json.ts";
import { checkPolicyObject } from "../policy/load.ts";
import { selectorMatches } from "../policy/selector.ts";
import type { Problem } from "../policy/validate.ts";

/** The parts of an MCPPolicy object the controller reads. */
export interface PolicyObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { namespace?: string; name?: string; uid?: string; generation?: number };
  spec?: unknown;
  status?: PolicyStatus;
}

export interface PodObject {
  metadata?: { namespace?: string; name?: string; uid?: string; labels?: Record<string, string> };
  spec?: { serviceAccountName?: string };
}

export interface PodInfo {
  namespace: string;
  name: string;
  uid: string;
  labels: Readonly<Record<string, string>>;
  serviceAccount: string;
}

export interface Condition {
  type: "Ready" | "Compiled";
  status: "True" | "False" | "Unknown";
  observedGeneration: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export interface PolicyStatus {
  observedGeneration?: number;
  conditions?: Condition[];
  bundleHash?: string;
  matchedPods?: number;
}

/** One MCPPolicy after checking: valid ones carry their bundle entry, invalid ones their problems. */
export interface CheckedPolicy {
  key: string;
  namespace: string;
  name: string;
  generation: number;
  object: PolicyObject;
  entry?: BundlePolicy;
  /** canonicalJson(entry), cached: bundle hashes are computed from these. */
  canonical?: string;
  problems: Problem[];
}

export function podInfo(pod: PodObject): PodInfo | undefined {
  const { namespace, name, uid } = pod.metadata ?? {};
  if (!namespace || !name) return undefined;
  return {
    namespace,
    name,
    uid: uid ?? "",
    labels: pod.metadata?.labels ?? {},
    serviceAccount: pod.spec?.serviceAccountName || "default",
  };
}

const checkCache = new WeakMap<object, CheckedPolicy>();

/** Checks an MCPPolicy as stored by the API server (schema, CEL, RE2, paths) and applies defaults. */
export function checkPolicy(object: PolicyObject): CheckedPolicy {
  const cached = checkCache.get(object);
  if (cached) return cached;
  const namespace = object.metadata?.namespace ?? "";
  const name = object.metadata?.name ?? "";
  const generation = object.metadata?.generation ?? 0;
  const checked = checkPolicyObject({
    apiVersion: object.apiVersion,
    kind: object.kind,
    metadata: { namespace, name },
    spec: structuredClone(object.spec),
  });
  const result: CheckedPolicy = {
    key: `${namespace}/${name}`,
    namespace,
    name,
    generation,
    object,
    problems: checked.problems,
  };
  if (checked.policy) {
    result.entry = { namespace, name, generation, spec: checked.policy.spec };
    result.canonical = canonicalJson(result.entry);
  }
  checkCache.set(object, result);
  return result;
}

/**
 * What the controller knows, as plain data: the policies and pods of the informer caches. Answers
 * "which bundle does this pod get" and "what is this policy's status". Rebuilt on every change.
 */
export class ControllerModel {
  readonly policies: readonly CheckedPolicy[];
  readonly #validByNamespace = new Map<string, CheckedPolicy[]>();
  readonly #pods = new Map<string, PodInfo>();
  readonly #podsByNamespace = new Map<string, PodInfo[]>();
  /** JSON of the policy list, by bundle hash: pods with the same policies share one encoding. */
  readonly #policiesJson = new Map<string, string>();

  constructor(policyObjects: Iterable<PolicyObject>, podObjects: Iterable<PodObject>) {
    const policies: CheckedPolicy[] = [];
    for (const object of policyObjects) {
      const checked = checkPolicy(object);
      policies.push(checked);
      if (!checked.entry) continue;
      const list = this.#validByNamespace.get(checked.namespace) ?? [];
      list.push(checked);
      this.#validByNamespace.set(checked.namespace, list);
    }
    for (const list of this.#validByNamespace.values())
      list.sort((a, b) => comparePolicies(a.entry!, b.entry!));
    this.policies = policies;
    for (const object of podObjects) {
      const pod = podInfo(object);
      if (!pod) continue;
      this.#pods.set(`${pod.namespace}/${pod.name}`, pod);
      const list = this.#podsByNamespace.get(pod.namespace) ?? [];
      list.push(pod);
      this.#podsByNamespace.set(pod.namespace, list);
    }
  }

  pod(namespace: string, name: string): PodInfo | undefined {
    return this.#pods.get(`${namespace}/${name}`);
  }

  #selecting(pod: Pick<PodInfo, "namespace" | "labels">): CheckedPolicy[] {
    return (this.#validByNamespace.get(pod.namespace) ?? []).filter((p) =>
      selectorMatches(p.entry!.spec.podSelector, pod.labels),
    );
  }

  bundleHashFor(pod: Pick<PodInfo, "namespace" | "labels">): string {
    return hashOfCanonicalPolicies(this.#selecting(pod).map((p) => p.canonical!));
  }

  bundleFor(pod: Pick<PodInfo, "namespace" | "name" | "labels">, now: Date = new Date()): Bundle {
    const selecting = this.#selecting(pod);
    return {
      hash: hashOfCanonicalPolicies(selecting.map((p) => p.canonical!)),
      namespace: pod.namespace,
      pod: pod.name,
      policies: selecting.map((p) => p.entry!),
      issuedAt: now.toISOString(),
    };
  }

  /** `bundleFor` already encoded as JSON, the policy list encoded once per distinct bundle. */
  bundleJsonFor(
    pod: Pick<PodInfo, "namespace" | "name" | "labels">,
    now: Date = new Date(),
  ): { hash: string; json: string } {
    const selecting = this.#selecting(pod);
    const hash = hashOfCanonicalPolicies(selecting.map((p) => p.canonical!));
    let policies = this.#policiesJson.get(hash);
    if (policies === undefined) {
      policies = JSON.stringify(selecting.map((p) => p.entry!));
      this.#policiesJson.set(hash, policies);
    }
    const head = `{"hash":${JSON.stringify(hash)},"namespace":${JSON.stringify(pod.namespace)},"pod":${JSON.stringify(pod.name)}`;
    return { hash, json: `${head},"policies":${policies},"issuedAt":${JSON.stringify(now.toISOString())}}` };
  }

  matchedPods(policy: CheckedPolicy): number {
    if (!policy.entry) return 0;
    const selector = policy.entry.spec.podSelector;
    return (this.#podsByNamespace.get(policy.namespace) ?? []).filter((pod) =>
      selectorMatches(selector, pod.labels),
    ).length;
  }
}

function condition(
  type: Condition["type"],
  ok: boolean,
  generation: number,
  reason: string,
  message: string,
  previous: Condition[] | undefined,
  now: string,
): Condition {
  const status = ok ? "True" : "False";
  const before = previous?.find((c) => c.type === type);
  return {
    type,
    status,
    observedGeneration: generation,
    lastTransitionTime: before && before.status === status ? before.lastTransitionTime : now,
    reason,
    message,
  };
}

const maxMessageLength = 32_000;

/** The status the controller wants the policy to have; transition times kept where the status did not change. */
export function desiredStatus(policy: CheckedPolicy, model: ControllerModel, now: string): PolicyStatus {
  const previous = policy.object.status?.conditions;
  const generation = policy.generation;
  if (!policy.entry) {
    const message = policy.problems
      .map((p) => (p.path ? `${p.path}: ${p.message}` : p.message))
      .join("; ")
      .slice(0, maxMessageLength);
    return {
      observedGeneration: generation,
      conditions: [
        condition("Compiled", false, generation, "InvalidSpec", message, previous, now),
        condition(
          "Ready",
          false,
          generation,
          "InvalidSpec",
          `not distributed: ${message}`.slice(0, maxMessageLength),
          previous,
          now,
        ),
      ],
      matchedPods: model.matchedPods(policy),
    };
  }
  const matched = model.matchedPods(policy);
  return {
    observedGeneration: generation,
    conditions: [
      condition("Compiled", true, generation, "Compiled", "spec compiled", previous, now),
      condition(
        "Ready",
        true,
        generation,
        "Distributed",
        `in the bundles of ${matched} pod(s)`,
        previous,
        now,
      ),
    ],
    bundleHash: hashOfCanonicalPolicies([policy.canonical!]),
    matchedPods: matched,
  };
}

/** True when writing `desired` would change what the API server holds. */
export function statusDiffers(current: PolicyStatus | undefined, desired: PolicyStatus): boolean {
  return canonicalJson(current ?? {}) !== canonicalJson(desired);
}
