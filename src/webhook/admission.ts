/**
 * AdmissionReview v1 in, AdmissionReview v1 out. Pure: the server only moves bytes.
 */
import type { V1Pod } from "@kubernetes/client-node";
import jsonPatch from "fast-json-patch";
import {
  type InjectionConfig,
  type InjectionResult,
  injectEphemeralContainers,
  injectPod,
} from "./inject.ts";

export interface AdmissionRequest {
  uid: string;
  kind?: { group: string; version: string; kind: string };
  resource?: { group: string; version: string; resource: string };
  subResource?: string;
  namespace?: string;
  operation?: string;
  object?: unknown;
  oldObject?: unknown;
  dryRun?: boolean;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  patchType?: "JSONPatch";
  patch?: string;
  status?: { code: number; reason: string; message: string };
  warnings?: string[];
}

export interface AdmissionReview {
  apiVersion: "admission.k8s.io/v1";
  kind: "AdmissionReview";
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}

/** What the metric records for one admission; a bounded set. */
export type AdmissionOutcome = "injected" | "unchanged" | "skipped" | "rejected" | "error";

export interface ReviewResult {
  review: AdmissionReview;
  outcome: AdmissionOutcome;
}

export class BadAdmissionReview extends Error {}

export function parseAdmissionReview(body: unknown): AdmissionRequest {
  if (typeof body !== "object" || body === null) throw new BadAdmissionReview("body is not a JSON object");
  const review = body as Partial<AdmissionReview>;
  if (review.apiVersion !== "admission.k8s.io/v1" || review.kind !== "AdmissionReview") {
    throw new BadAdmissionReview(
      `expected apiVersion admission.k8s.io/v1 kind AdmissionReview, got ${review.apiVersion} ${review.kind}`,
    );
  }
  const request = review.request;
  if (
    typeof request !== "object" ||
    request === null ||
    typeof request.uid !== "string" ||
    request.uid === ""
  ) {
    throw new BadAdmissionReview("request.uid is missing");
  }
  return request;
}

/** Removes what must never take part in the diff: the API server owns managedFields. */
function withoutManagedFields(pod: V1Pod): V1Pod {
  if (!pod.metadata?.managedFields) return pod;
  const { managedFields: _dropped, ...metadata } = pod.metadata;
  return { ...pod, metadata };
}

function respond(request: AdmissionRequest, response: Omit<AdmissionResponse, "uid">): AdmissionReview {
  return {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    response: { uid: request.uid, ...response },
  };
}

function isPodRequest(request: AdmissionRequest): boolean {
  const resource = request.resource;
  return resource?.group === "" && resource.version === "v1" && resource.resource === "pods";
}

/** Decides one admission request. Never throws for a well-formed review. */
export function review(request: AdmissionRequest, config: InjectionConfig): ReviewResult {
  const subResource = request.subResource ?? "";
  if (!isPodRequest(request) || typeof request.object !== "object" || request.object === null) {
    return { review: respond(request, { allowed: true }), outcome: "skipped" };
  }
  const before = withoutManagedFields(request.object as V1Pod);
  let result: InjectionResult;
  if (subResource === "" && request.operation === "CREATE") {
    result = injectPod(before, config);
  } else if (subResource === "ephemeralcontainers") {
    result = injectEphemeralContainers(request.oldObject as V1Pod | undefined, before);
  } else {
    return { review: respond(request, { allowed: true }), outcome: "skipped" };
  }
  if (result.outcome === "skipped")
    return { review: respond(request, { allowed: true }), outcome: "skipped" };
  if (result.outcome === "rejected") {
    return {
      review: respond(request, {
        allowed: false,
        status: { code: 403, reason: "Forbidden", message: `toolwall: ${result.message}` },
      }),
      outcome: "rejected",
    };
  }
  const patch = jsonPatch.compare(before, result.pod);
  if (patch.length === 0) return { review: respond(request, { allowed: true }), outcome: "unchanged" };
  return {
    review: respond(request, {
      allowed: true,
      patchType: "JSONPatch",
      patch: Buffer.from(JSON.stringify(patch)).toString("base64"),
    }),
    outcome: "injected",
  };
}
