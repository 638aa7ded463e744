import { ApiException, AuthorizationV1Api, KubeConfig } from "@kubernetes/client-node";
import type { FastifyReply, FastifyRequest } from "fastify";
import { bearerToken } from "../state/events-route.ts";

/** What the API server said about the caller: its token is not valid, or whether it may read. */
export type AccessAnswer = "unauthenticated" | { allowed: boolean; reason?: string | undefined };

/** Asks, as the holder of `token`, whether it may read the audit events of `namespace`. */
export type ReviewAccess = (token: string, namespace: string) => Promise<AccessAnswer>;

/** Reading a namespace's audit events takes what listing its MCPPolicies takes. */
export const eventsAccess = { group: "toolwall.io", resource: "mcppolicies", verb: "list" } as const;

/**
 * The `authenticate` hook of the events route: a bearer token (401 without one or when the API server
 * rejects it) whose identity may `list mcppolicies.toolwall.io` in the queried namespace (403
 * otherwise, and for a query without a namespace: access is granted per namespace).
 */
export function kubernetesEventsAuth(
  review: ReviewAccess,
  log?: (message: string) => void,
): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  return async (request, reply) => {
    const token = bearerToken(request);
    if (!token) {
      await reply
        .code(401)
        .header("www-authenticate", "Bearer")
        .send({ error: "a bearer token (your Kubernetes credentials) is required" });
      return;
    }
    const namespace = (request.query as Record<string, unknown>).namespace;
    if (typeof namespace !== "string" || namespace === "") {
      await reply.code(403).send({ error: "namespace is required: events are readable per namespace" });
      return;
    }
    let answer: AccessAnswer;
    try {
      answer = await review(token, namespace);
    } catch (error) {
      log?.(`SelfSubjectAccessReview failed: ${(error as Error).message}`);
      await reply.code(503).header("retry-after", "2").send({ error: "cannot check access now" });
      return;
    }
    if (answer === "unauthenticated") {
      await reply.code(401).send({ error: "token rejected by the API server" });
    } else if (!answer.allowed) {
      const { verb, resource, group } = eventsAccess;
      await reply.code(403).send({
        error: `not allowed to ${verb} ${resource}.${group} in namespace ${namespace}${answer.reason ? `: ${answer.reason}` : ""}`,
      });
    }
  };
}

/**
 * A SelfSubjectAccessReview made with the caller's own token against the cluster of `config`: the API
 * server authenticates the token and authorises it in one call, and the controller needs no RBAC for it.
 */
export function selfSubjectAccessReview(config: KubeConfig): ReviewAccess {
  const cluster = config.getCurrentCluster();
  if (!cluster) throw new Error("the Kubernetes configuration names no current cluster");
  return async (token, namespace) => {
    const caller = new KubeConfig();
    caller.loadFromOptions({
      clusters: [cluster],
      users: [{ name: "caller", token }],
      contexts: [{ name: "caller", cluster: cluster.name, user: "caller" }],
      currentContext: "caller",
    });
    try {
      const review = await caller.makeApiClient(AuthorizationV1Api).createSelfSubjectAccessReview({
        body: { spec: { resourceAttributes: { ...eventsAccess, namespace } } },
      });
      return { allowed: review.status?.allowed === true, reason: review.status?.reason };
    } catch (error) {
      if (error instanceof ApiException && error.code === 401) return "unauthenticated";
      throw error;
    }
  };
}
