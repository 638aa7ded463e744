import { Counter, Gauge, Histogram } from "prom-client";

/** Controller metrics, on prom-client's default registry next to the shared ones of src/telemetry. */

export const bundleRequests = new Counter({
  name: "toolwall_controller_bundle_requests_total",
  help: "Bundle requests answered, by result (changed, unchanged, unauthenticated, forbidden, unavailable, bad_request).",
  labelNames: ["result"] as const,
});

export const bundleWaiters = new Gauge({
  name: "toolwall_controller_bundle_waiters",
  help: "Sidecars currently long-polling for a bundle change.",
});

export const bundlePushDuration = new Histogram({
  name: "toolwall_controller_bundle_push_duration_seconds",
  help: "Time from an informer change until every waiting sidecar whose bundle changed was answered.",
  buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
});

export const policiesKnown = new Gauge({
  name: "toolwall_controller_policies",
  help: "MCPPolicies known to the controller, by state (valid, invalid).",
  labelNames: ["state"] as const,
});

export const tokenReviews = new Counter({
  name: "toolwall_controller_token_reviews_total",
  help: "TokenReview calls made (cache misses), by result (authenticated, rejected, error).",
  labelNames: ["result"] as const,
});

export const statusWrites = new Counter({
  name: "toolwall_controller_status_writes_total",
  help: "MCPPolicy status writes by the leader, by result (ok, error).",
  labelNames: ["result"] as const,
});

export const isLeader = new Gauge({
  name: "toolwall_controller_leader",
  help: "1 while this replica holds the leader Lease (writes status), else 0.",
});

export const informerRestarts = new Counter({
  name: "toolwall_controller_informer_restarts_total",
  help: "Informer list/watch failures that led to a restart, by resource.",
  labelNames: ["resource"] as const,
});
