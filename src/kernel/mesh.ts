/**
 * The names and numbers the pieces of the mesh agree on: the webhook writes them into pods, `toolwall
 * init` redirects to them, the sidecar listens on them, the chart and the tests check them. They live
 * here once; nothing else spells 1337 or 15001.
 */

/** uid (and gid) of the sidecar: its own traffic is not redirected. */
export const PROXY_UID = 1337;
/** The sidecar's transparent listener, where iptables redirects the pod's outbound TCP. */
export const PROXY_PORT = 15001;
/** The sidecar's /healthz /readyz /metrics, on loopback only. */
export const ADMIN_PORT = 15020;
export const ADMIN_ADDRESS = `127.0.0.1:${ADMIN_PORT}`;

export const INJECT_ANNOTATION = "toolwall.io/inject";
export const STATUS_ANNOTATION = "toolwall.io/status";
export const NAMESPACE_LABEL = "toolwall.io/injection";
/** Audience of the projected service-account token the sidecar shows the controller. */
export const TOKEN_AUDIENCE = "toolwall";

export const INIT_CONTAINER = "toolwall-init";
export const SIDECAR_CONTAINER = "toolwall-sidecar";
export const CA_VOLUME = "toolwall-ca";
export const TOKEN_VOLUME = "toolwall-token";
export const STATE_VOLUME = "toolwall-state";

export const CA_DIR = "/var/run/toolwall/ca";
export const TOKEN_DIR = "/var/run/secrets/toolwall";
export const STATE_DIR = "/var/lib/toolwall";
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
