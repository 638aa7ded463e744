/**
 * The names and numbers the pieces of the mesh agree on: the webhook writes them into pods, `toolwall
 * init` redirects to them, the sidecar listens on them, the chart and the tests check them. They live
 * here once; nothing else spells 1337 or 15001.
 */

/** uid (and gid) of the sidecar: its own traffic is not redirected. */
export const PROXY_UID = 1337;
/** The sidecar's transparent listener, where iptables redirects the pod's outbound TCP. */
export const PROXY_PORT = 15001;
/** The sidecar's /healthz /readyz /metrics: the kubelet's probe and Prometheus reach it on the pod IP. */
export const ADMIN_PORT = 15020;
/** The sidecar's admin server listens on every address: /metrics and the probes for clients outside the pod. */
export const ADMIN_LISTEN = `[::]:${ADMIN_PORT}`;
export const ADMIN_PORT_NAME = "toolwall-admin";

export const INJECT_ANNOTATION = "toolwall.io/inject";
export const STATUS_ANNOTATION = "toolwall.io/status";
export const NAMESPACE_LABEL = "toolwall.io/injection";
/** Per-pod sidecar resources, like Istio's sidecar.istio.io/proxyCPU…: request and limit. */
export const SIDECAR_RESOURCE_ANNOTATIONS = {
  "toolwall.io/sidecar-cpu": ["requests", "cpu"],
  "toolwall.io/sidecar-memory": ["requests", "memory"],
  "toolwall.io/sidecar-cpu-limit": ["limits", "cpu"],
  "toolwall.io/sidecar-memory-limit": ["limits", "memory"],
} as const;
/**
 * A ConfigMap in the pod's namespace whose key ca.crt (PEM) the sidecar trusts, besides the public
 * roots, for the upstreams it connects to (a provider or MCP server behind a private CA).
 */
export const UPSTREAM_CA_ANNOTATION = "toolwall.io/upstream-ca-configmap";
/** Audience of the projected service-account token the sidecar shows the controller. */
export const TOKEN_AUDIENCE = "toolwall";

export const INIT_CONTAINER = "toolwall-init";
export const SIDECAR_CONTAINER = "toolwall-sidecar";
export const CA_VOLUME = "toolwall-ca";
export const TOKEN_VOLUME = "toolwall-token";
export const STATE_VOLUME = "toolwall-state";
/** Injected only when the pod asks for it (UPSTREAM_CA_ANNOTATION). */
export const UPSTREAM_CA_VOLUME = "toolwall-upstream-ca";

export const CA_DIR = "/var/run/toolwall/ca";
export const TOKEN_DIR = "/var/run/secrets/toolwall";
export const STATE_DIR = "/var/lib/toolwall";
export const UPSTREAM_CA_DIR = "/var/run/toolwall/upstream-ca";
/** The pod CA alone (added to Node's roots) and the public roots merged with it (replaces the roots). */
export const CA_CERT_FILE = `${CA_DIR}/ca.crt`;
export const TRUST_BUNDLE_FILE = `${CA_DIR}/ca-bundle.pem`;

/** Environment variables that make common runtimes trust the pod CA, and the file each points at. */
export const TRUST_ENV: ReadonlyArray<readonly [string, string]> = [
  ["NODE_EXTRA_CA_CERTS", CA_CERT_FILE],
  ["SSL_CERT_FILE", TRUST_BUNDLE_FILE],
  ["REQUESTS_CA_BUNDLE", TRUST_BUNDLE_FILE],
  ["CURL_CA_BUNDLE", TRUST_BUNDLE_FILE],
  ["GIT_SSL_CAINFO", TRUST_BUNDLE_FILE],
  ["DENO_CERT", TRUST_BUNDLE_FILE],
];
