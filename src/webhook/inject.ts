/**
 * Sidecar injection as a pure function: a pod goes in, the injected pod (or a refusal) comes out.
 * No I/O here; the admission handler turns the result into an AdmissionReview response.
 */
import type {
  V1Container,
  V1EnvVar,
  V1EphemeralContainer,
  V1Pod,
  V1Probe,
  V1Volume,
  V1VolumeMount,
} from "@kubernetes/client-node";

import {
  ADMIN_LISTEN,
  ADMIN_PORT,
  ADMIN_PORT_NAME,
  CA_DIR,
  CA_VOLUME,
  INIT_CONTAINER,
  INJECT_ANNOTATION,
  PROXY_PORT,
  PROXY_UID,
  SIDECAR_CONTAINER,
  SIDECAR_RESOURCE_ANNOTATIONS,
  STATE_DIR,
  STATE_VOLUME,
  STATUS_ANNOTATION,
  TOKEN_AUDIENCE,
  TOKEN_DIR,
  TOKEN_VOLUME,
  TRUST_ENV,
  UPSTREAM_CA_ANNOTATION,
  UPSTREAM_CA_DIR,
  UPSTREAM_CA_VOLUME,
} from "../kernel/mesh.ts";

/** Prometheus' annotation-based discovery; set only when the pod does not use it itself. */
const PROMETHEUS_ANNOTATIONS = {
  "prometheus.io/scrape": "true",
  "prometheus.io/port": String(ADMIN_PORT),
  "prometheus.io/path": "/metrics",
};

/**
 * V8 sizes the young generation for throughput: an idle sidecar held 67 MB of new space (37 MB of live
 * heap in all). Capping the semi-space took ~50 MB off its idle RSS and ~100 MB off its RSS under
 * load, with no throughput change measurable by bench/side-by-side.bench.ts. The old space is capped
 * well below the container's default 384 Mi limit (the heap stays under ~60 MB at c=64 with 500 open
 * streams): V8 collects harder near the cap instead of growing until the kernel kills the pod's egress.
 */
export const SIDECAR_NODE_OPTIONS = "--max-semi-space-size=2 --max-old-space-size=192";

const RESERVED_CONTAINERS = [INIT_CONTAINER, SIDECAR_CONTAINER];
const RESERVED_VOLUMES = [CA_VOLUME, TOKEN_VOLUME, STATE_VOLUME];
const NAMED_VOLUMES = [...RESERVED_VOLUMES, UPSTREAM_CA_VOLUME];
const BYPASS_CAPABILITIES = new Set(["NET_ADMIN", "NET_RAW", "ALL"]);

export interface InjectionConfig {
  image: string;
  imagePullPolicy: string;
  /** Where sidecars long-poll for their bundle. */
  controllerUrl: string;
  /** Shared state store for the sidecars (TOOLWALL_REDIS_URL); empty: each sidecar keeps state in memory. */
  redisUrl: string;
  /** Lifetime of the projected bundle token; the kubelet refreshes it at 80 %. */
  tokenExpirationSeconds: number;
  sidecarResources: NonNullable<V1Container["resources"]>;
  initResources: NonNullable<V1Container["resources"]>;
}

export const defaultInjectionConfig: InjectionConfig = {
  image: "ghcr.io/toolwall/toolwall:0.1.0",
  imagePullPolicy: "IfNotPresent",
  controllerUrl: "http://toolwall-controller.toolwall-system.svc:8443",
  redisUrl: "",
  tokenExpirationSeconds: 3600,
  // Measured (docs/benchmarks.md): with SIDECAR_NODE_OPTIONS the sidecar idles at ~114 MB RSS and
  // peaked at 186–213 MiB (cgroup) on a real node under 64 concurrent requests; `toolwall init`
  // peaks at ~56 MB. Requests cover idle, limits the measured peak with headroom: an OOM-killed
  // sidecar is a pod without egress.
  sidecarResources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "384Mi" } },
  initResources: { requests: { cpu: "50m", memory: "64Mi" }, limits: { memory: "128Mi" } },
};

export type InjectionResult =
  | { outcome: "injected"; pod: V1Pod }
  | { outcome: "skipped"; reason: string }
  | { outcome: "rejected"; message: string };

type AnyContainer = V1Container | V1EphemeralContainer;

/** Injects the init container, the native sidecar, volumes and trust env into a pod being created. */
export function injectPod(input: V1Pod, config: InjectionConfig): InjectionResult {
  const annotations = input.metadata?.annotations ?? {};
  if (annotations[INJECT_ANNOTATION] === "false") {
    return { outcome: "skipped", reason: `annotation ${INJECT_ANNOTATION}: "false"` };
  }
  const pod = structuredClone(input);
  pod.spec ??= { containers: [] };
  const alreadyInjected = annotations[STATUS_ANNOTATION] !== undefined;
  const refusal = alreadyInjected ? undefined : reservedNameRefusal(pod);
  if (refusal) return { outcome: "rejected", message: refusal };
  removeInjected(pod);
  const bypass = bypassRefusal(pod);
  if (bypass) return { outcome: "rejected", message: bypass };
  const resources = sidecarResources(annotations, config.sidecarResources);
  if (typeof resources === "string") return { outcome: "rejected", message: resources };
  const upstreamCa = annotations[UPSTREAM_CA_ANNOTATION];
  if (upstreamCa !== undefined && !/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(upstreamCa)) {
    return {
      outcome: "rejected",
      message: `annotation ${UPSTREAM_CA_ANNOTATION}: "${upstreamCa.slice(0, 60)}" is not a ConfigMap name`,
    };
  }

  const spec = pod.spec!;
  spec.initContainers = [
    initContainer(config),
    sidecarContainer({ ...config, sidecarResources: resources }, upstreamCa),
    ...(spec.initContainers ?? []),
  ];
  spec.volumes = [...(spec.volumes ?? []), ...volumes(config)];
  if (upstreamCa !== undefined) {
    spec.volumes.push({
      name: UPSTREAM_CA_VOLUME,
      configMap: { name: upstreamCa, items: [{ key: "ca.crt", path: "ca.crt" }] },
    });
  }
  for (const container of [...spec.initContainers.slice(2), ...spec.containers]) addTrust(container, true);
  pod.metadata ??= {};
  const scraped = Object.keys(pod.metadata.annotations ?? {}).some((key) => key.startsWith("prometheus.io/"));
  pod.metadata.annotations = {
    ...(scraped ? {} : PROMETHEUS_ANNOTATIONS),
    ...pod.metadata.annotations,
    [STATUS_ANNOTATION]: statusAnnotation(config),
  };
  return { outcome: "injected", pod };
}

/** Kubernetes resource quantities: 100m, 0.5, 256Mi, 1G, 1e3. */
const QUANTITY = /^[+]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/;

type Resources = NonNullable<V1Container["resources"]>;

/**
 * `{"requests": {"cpu": "100m", "memory": "256Mi"}, "limits": {"memory": "768Mi"}}` (the chart's
 * values as JSON), or why it is not.
 */
export function parseResources(text: string, what: string): Resources {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${what}: not JSON: ${text.slice(0, 60)}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new Error(`${what}: expected {"requests": {…}, "limits": {…}}`);
  const result: Resources = {};
  for (const [kind, entries] of Object.entries(value)) {
    if (kind !== "requests" && kind !== "limits") throw new Error(`${what}: unknown key '${kind}'`);
    if (typeof entries !== "object" || entries === null)
      throw new Error(`${what}.${kind}: expected an object`);
    const quantities: Record<string, string> = {};
    for (const [resource, quantity] of Object.entries(entries)) {
      if (resource !== "cpu" && resource !== "memory")
        throw new Error(`${what}.${kind}: only cpu and memory, got '${resource}'`);
      if (!QUANTITY.test(String(quantity)))
        throw new Error(`${what}.${kind}.${resource}: '${String(quantity)}' is not a Kubernetes quantity`);
      quantities[resource] = String(quantity);
    }
    result[kind] = quantities;
  }
  return result;
}

/** The sidecar's resources with the pod's annotations applied, or why an annotation is refused. */
function sidecarResources(
  annotations: Record<string, string>,
  defaults: NonNullable<V1Container["resources"]>,
): NonNullable<V1Container["resources"]> | string {
  const resources = { requests: { ...defaults.requests }, limits: { ...defaults.limits } };
  for (const [key, [kind, resource]] of Object.entries(SIDECAR_RESOURCE_ANNOTATIONS)) {
    const value = annotations[key];
    if (value === undefined) continue;
    if (!QUANTITY.test(value.trim())) {
      return `annotation ${key}: "${value.slice(0, 40)}" is not a Kubernetes quantity (e.g. ${resource === "cpu" ? "100m" : "256Mi"})`;
    }
    resources[kind][resource] = value.trim();
  }
  return resources;
}

/**
 * `kubectl debug` adds ephemeral containers through the pods/ephemeralcontainers subresource; they
 * share the pod's network namespace, so they get the same bypass checks and the trust env.
 */
export function injectEphemeralContainers(oldPod: V1Pod | undefined, input: V1Pod): InjectionResult {
  const annotations = input.metadata?.annotations ?? {};
  if (annotations[STATUS_ANNOTATION] === undefined) {
    return { outcome: "skipped", reason: "pod was not injected" };
  }
  const pod = structuredClone(input);
  const existing = new Set((oldPod?.spec?.ephemeralContainers ?? []).map((c) => c.name));
  const added = (pod.spec?.ephemeralContainers ?? []).filter((c) => !existing.has(c.name));
  const hasCaVolume = (pod.spec?.volumes ?? []).some((v) => v.name === CA_VOLUME);
  for (const container of added) {
    const problem =
      containerBypass(container, pod, "ephemeral container") ??
      reservedMount(container, "ephemeral container");
    if (problem) return { outcome: "rejected", message: problem };
    addTrust(container, hasCaVolume);
  }
  return { outcome: "injected", pod };
}

function reservedNameRefusal(pod: V1Pod): string | undefined {
  const spec = pod.spec!;
  const containers = [...(spec.initContainers ?? []), ...spec.containers];
  const clash = containers.find((c) => RESERVED_CONTAINERS.includes(c.name));
  if (clash) return `container name "${clash.name}" is reserved for Toolwall's injected containers`;
  const volume = (spec.volumes ?? []).find((v) => NAMED_VOLUMES.includes(v.name));
  if (volume) return `volume name "${volume.name}" is reserved for Toolwall's injected volumes`;
  return undefined;
}

/** Takes out what an earlier injection added, so injecting again yields the same pod. */
function removeInjected(pod: V1Pod): void {
  const spec = pod.spec!;
  if (spec.initContainers) {
    spec.initContainers = spec.initContainers.filter((c) => !RESERVED_CONTAINERS.includes(c.name));
    if (spec.initContainers.length === 0) delete spec.initContainers;
  }
  if (spec.volumes) {
    spec.volumes = spec.volumes.filter((v) => !NAMED_VOLUMES.includes(v.name));
    if (spec.volumes.length === 0) delete spec.volumes;
  }
}

function bypassRefusal(pod: V1Pod): string | undefined {
  const spec = pod.spec!;
  if (spec.hostNetwork) {
    return 'hostNetwork pods share the node\'s network namespace, where Toolwall cannot intercept their traffic; set hostNetwork: false or opt out with the annotation toolwall.io/inject: "false"';
  }
  const podContext = spec.securityContext ?? {};
  if (podContext.runAsGroup === PROXY_UID || podContext.fsGroup === PROXY_UID) {
    return `the pod's securityContext uses group ${PROXY_UID}, which is reserved for the Toolwall sidecar (its traffic bypasses interception)`;
  }
  if ((podContext.supplementalGroups ?? []).includes(PROXY_UID)) {
    return `the pod's supplementalGroups include ${PROXY_UID}, which is reserved for the Toolwall sidecar (its traffic bypasses interception)`;
  }
  for (const container of spec.initContainers ?? []) {
    const problem = containerBypass(container, pod, "init container");
    if (problem) return problem;
  }
  for (const container of spec.containers) {
    const problem = containerBypass(container, pod, "container");
    if (problem) return problem;
  }
  for (const container of spec.ephemeralContainers ?? []) {
    const problem = containerBypass(container, pod, "ephemeral container");
    if (problem) return problem;
  }
  for (const container of [...(spec.initContainers ?? []), ...spec.containers]) {
    const problem = reservedMount(container, "container");
    if (problem) return problem;
  }
  return undefined;
}

/** App containers may read the CA volume; the token and the sidecar's state are the sidecar's alone. */
function reservedMount(container: AnyContainer, what: string): string | undefined {
  for (const mount of container.volumeMounts ?? []) {
    if (mount.name === CA_VOLUME && !mount.readOnly) {
      return `${what} "${container.name}" mounts volume "${CA_VOLUME}" writable; only the Toolwall sidecar may write the pod CA`;
    }
    if (mount.name === TOKEN_VOLUME || mount.name === STATE_VOLUME) {
      return `${what} "${container.name}" mounts volume "${mount.name}", which only the Toolwall sidecar may mount`;
    }
  }
  return undefined;
}

function containerBypass(container: AnyContainer, pod: V1Pod, what: string): string | undefined {
  const context = container.securityContext ?? {};
  const podContext = pod.spec?.securityContext ?? {};
  const name = `${what} "${container.name}"`;
  const uid = context.runAsUser ?? podContext.runAsUser;
  if (uid === PROXY_UID) {
    return `${name} runs as uid ${PROXY_UID}, which is reserved for the Toolwall sidecar (its traffic bypasses interception)`;
  }
  const gid = context.runAsGroup ?? podContext.runAsGroup;
  if (gid === PROXY_UID) {
    return `${name} runs as gid ${PROXY_UID}, which is reserved for the Toolwall sidecar (its traffic bypasses interception)`;
  }
  if (context.privileged) {
    return `${name} is privileged and could rewrite the pod's iptables rules to bypass Toolwall`;
  }
  const added = (context.capabilities?.add ?? []).map((c) => c.toUpperCase().replace(/^CAP_/, ""));
  const dangerous = added.find((c) => BYPASS_CAPABILITIES.has(c));
  if (dangerous) {
    return `${name} adds capability ${dangerous}, which could rewrite the pod's iptables rules to bypass Toolwall`;
  }
  return undefined;
}

function initContainer(config: InjectionConfig): V1Container {
  return {
    name: INIT_CONTAINER,
    image: config.image,
    imagePullPolicy: config.imagePullPolicy,
    args: ["init", "--proxy-uid", String(PROXY_UID), "--proxy-port", String(PROXY_PORT)],
    resources: config.initResources,
    securityContext: {
      runAsUser: 0,
      runAsGroup: 0,
      runAsNonRoot: false,
      privileged: false,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { add: ["NET_ADMIN", "NET_RAW"], drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    },
  };
}

/**
 * The kubelet probes /readyz over the pod IP (httpGet: no process started in the pod, nothing charged
 * to the sidecar's memory limit); the admin server serves clients outside the pod /metrics and the
 * probe endpoints only. initialDelaySeconds 0 and the 1 s minimum period let the app containers start
 * within a second of the sidecar becoming ready.
 */
function readyProbe(): V1Probe {
  return {
    httpGet: { path: "/readyz", port: ADMIN_PORT_NAME, scheme: "HTTP" },
    initialDelaySeconds: 0,
    periodSeconds: 1,
    timeoutSeconds: 2,
    failureThreshold: 120,
  };
}

function fieldEnv(name: string, fieldPath: string): V1EnvVar {
  return { name, valueFrom: { fieldRef: { fieldPath } } };
}

function sidecarContainer(config: InjectionConfig, upstreamCaConfigMap?: string): V1Container {
  const upstreamCa = upstreamCaConfigMap !== undefined;
  return {
    name: SIDECAR_CONTAINER,
    image: config.image,
    imagePullPolicy: config.imagePullPolicy,
    restartPolicy: "Always",
    args: [
      "sidecar",
      "--listen",
      `[::]:${PROXY_PORT}`,
      "--admin",
      ADMIN_LISTEN,
      "--ca-dir",
      CA_DIR,
      "--controller-url",
      config.controllerUrl,
      "--token-file",
      `${TOKEN_DIR}/token`,
      "--bundle-dir",
      STATE_DIR,
      ...(upstreamCa ? ["--extra-ca", `${UPSTREAM_CA_DIR}/ca.crt`] : []),
    ],
    // The pod name is unknown at admission for generateName pods: the kubelet fills it in.
    env: [
      fieldEnv("TOOLWALL_POD_NAME", "metadata.name"),
      fieldEnv("TOOLWALL_POD_NAMESPACE", "metadata.namespace"),
      fieldEnv("TOOLWALL_POD_UID", "metadata.uid"),
      fieldEnv("TOOLWALL_SERVICE_ACCOUNT", "spec.serviceAccountName"),
      ...(config.redisUrl ? [{ name: "TOOLWALL_REDIS_URL", value: config.redisUrl }] : []),
      { name: "NODE_OPTIONS", value: SIDECAR_NODE_OPTIONS },
    ],
    ports: [{ name: ADMIN_PORT_NAME, containerPort: ADMIN_PORT, protocol: "TCP" }],
    resources: config.sidecarResources,
    startupProbe: readyProbe(),
    securityContext: {
      runAsUser: PROXY_UID,
      runAsGroup: PROXY_UID,
      runAsNonRoot: true,
      privileged: false,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    },
    volumeMounts: [
      { name: CA_VOLUME, mountPath: CA_DIR },
      { name: TOKEN_VOLUME, mountPath: TOKEN_DIR, readOnly: true },
      { name: STATE_VOLUME, mountPath: STATE_DIR },
      ...(upstreamCa ? [{ name: UPSTREAM_CA_VOLUME, mountPath: UPSTREAM_CA_DIR, readOnly: true }] : []),
    ],
  };
}

function volumes(config: InjectionConfig): V1Volume[] {
  return [
    { name: CA_VOLUME, emptyDir: { medium: "Memory", sizeLimit: "4Mi" } },
    {
      name: TOKEN_VOLUME,
      projected: {
        // Only the sidecar mounts this volume; the mode lets the sidecar's uid (PROXY_UID) read it without an fsGroup.
        defaultMode: 0o444,
        sources: [
          {
            serviceAccountToken: {
              audience: TOKEN_AUDIENCE,
              expirationSeconds: config.tokenExpirationSeconds,
              path: "token",
            },
          },
        ],
      },
    },
    { name: STATE_VOLUME, emptyDir: { sizeLimit: "64Mi" } },
  ];
}

function addTrust(container: AnyContainer, mountCa: boolean): void {
  const present = new Set((container.env ?? []).map((e) => e.name));
  const missing = TRUST_ENV.filter(([name]) => !present.has(name)).map(([name, value]) => ({ name, value }));
  if (missing.length > 0) container.env = [...(container.env ?? []), ...missing];
  const mount: V1VolumeMount = { name: CA_VOLUME, mountPath: CA_DIR, readOnly: true };
  const mounted = (container.volumeMounts ?? []).some((m) => m.name === CA_VOLUME || m.mountPath === CA_DIR);
  if (mountCa && !mounted) container.volumeMounts = [...(container.volumeMounts ?? []), mount];
}

function statusAnnotation(config: InjectionConfig): string {
  return JSON.stringify({
    version: 1,
    image: config.image,
    initContainers: RESERVED_CONTAINERS,
    volumes: RESERVED_VOLUMES,
  });
}
