/**
 * A one-node Kubernetes cluster on this machine, with real pods: containerd + runc + the CNI bridge
 * (Debian packages), the kubelet, kube-proxy, kube-controller-manager and kube-scheduler built from
 * the same k8s.io/kubernetes module as the API server, etcd, and CoreDNS as a Deployment.
 *
 * Everything runs in one network namespace of its own (NODE.netns), entered with nsenter (network
 * only, so the kubelet, containerd and runc share the host's mounts): kube-proxy's and the CNI
 * plugin's iptables chains, the bridge and the pod routes never touch the host's network, and
 * deleting the namespace removes them. The host reaches the API server and pod IPs through a veth.
 *
 * Persistent (cache, keyed by inputs): binaries, images, containerd's content store. Per run (state
 * dir): certificates, etcd, the kubelet's root dir, logs and the pids `downNode()` kills.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { stringify } from "yaml";
import { eventually } from "../helpers/eventually.ts";
import { cacheRoot, ensureBinaries, type KubeBinaries, run } from "../k8s/binaries.ts";
import { type ControlPlane, startControlPlane, startProcess, waitFor } from "../k8s/control-plane.ts";
import { type BuiltImage, ensureImages, exportImage, type ImageName, images, imagesDir } from "./images.ts";

export const NODE = {
  name: "toolwall-node",
  netns: "toolwall-node",
  hostVeth: "twn-host",
  nodeVeth: "twn-node",
  hostIp: "10.250.0.1",
  nodeIp: "10.250.0.2",
  bridge: "twn0",
  podCidr: "10.244.0.0/24",
  clusterCidr: "10.244.0.0/16",
  serviceCidr: "10.96.0.0/16",
  dnsIp: "10.96.0.10",
  clusterDomain: "cluster.local",
  stateDir: process.env.TOOLWALL_NODE_STATE ?? "/run/toolwall-node",
} as const;

export interface NodeCluster {
  server: string;
  kubeconfigPath: string;
  stateDir: string;
  binaries: KubeBinaries;
  images: Record<ImageName, BuiltImage>;
  /** Seconds: building (or checking) binaries and images, importing, and bringing the node up. */
  timings: Record<"binaries" | "images" | "import" | "start", number>;
  stop(): Promise<void>;
}

type Log = (line: string) => void;
const defaultLog: Log = (line) => process.stderr.write(`[node] ${line}\n`);

const paths = {
  containerdRoot: () => join(cacheRoot(), "node", "containerd"),
  importStamps: () => join(cacheRoot(), "node", "imported"),
  socket: () => join(NODE.stateDir, "containerd.sock"),
  logs: () => join(NODE.stateDir, "logs"),
  kubeletRoot: () => join(NODE.stateDir, "kubelet"),
};

const launcher = ["nsenter", `--net=/run/netns/${NODE.netns}`, "--"];

function inNode(cmd: string, args: string[]): Promise<string> {
  return run("nsenter", [`--net=/run/netns/${NODE.netns}`, "--", cmd, ...args], { cwd: "/" });
}

function ctr(args: string[]): Promise<string> {
  return run("ctr", ["--address", paths.socket(), "--namespace", "k8s.io", ...args], { cwd: "/" });
}

async function setUpNetwork(): Promise<void> {
  const ip = (args: string[]) => run("ip", args, { cwd: "/" });
  await ip(["netns", "add", NODE.netns]);
  await ip(["link", "add", NODE.hostVeth, "type", "veth", "peer", "name", NODE.nodeVeth]);
  await ip(["link", "set", NODE.nodeVeth, "netns", NODE.netns]);
  await ip(["addr", "add", `${NODE.hostIp}/30`, "dev", NODE.hostVeth]);
  await ip(["link", "set", NODE.hostVeth, "up"]);
  await inNode("ip", ["addr", "add", `${NODE.nodeIp}/30`, "dev", NODE.nodeVeth]);
  await inNode("ip", ["link", "set", NODE.nodeVeth, "up"]);
  await inNode("ip", ["link", "set", "lo", "up"]);
  await inNode("ip", ["route", "add", "default", "via", NODE.hostIp]);
  // The host (tests, kubectl) reaches pod and Service IPs through the node.
  await ip(["route", "add", NODE.clusterCidr, "via", NODE.nodeIp]);
  await ip(["route", "add", NODE.serviceCidr, "via", NODE.nodeIp]);
  await inNode("sysctl", ["-qw", "net.ipv4.ip_forward=1"]);
  await inNode("sysctl", ["-qw", "net.bridge.bridge-nf-call-iptables=1"]).catch(() => undefined);
}

function containerdConfig(): string {
  const cri = 'plugins."io.containerd.grpc.v1.cri"';
  return `version = 2
root = "${paths.containerdRoot()}"
state = "${join(NODE.stateDir, "containerd")}"
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs"]

[grpc]
  address = "${paths.socket()}"

[ttrpc]
  address = "${paths.socket()}.ttrpc"

[${cri}]
  sandbox_image = "${images.pause}"
  # These VMs withhold CAP_SYS_RESOURCE: the kubelet's oom_score_adj of -998 for a sandbox would make
  # every runc start fail ("can't get final child's PID from pipe: EOF").
  restrict_oom_score_adj = true
  enable_selinux = false

[${cri}.containerd]
  snapshotter = "overlayfs"
  default_runtime_name = "runc"

[${cri}.containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"

[${cri}.containerd.runtimes.runc.options]
  SystemdCgroup = false
  Root = "${join(NODE.stateDir, "runc")}"

[${cri}.cni]
  bin_dir = "/usr/lib/cni"
  conf_dir = "${join(NODE.stateDir, "cni")}"
`;
}

function cniConfig(): string {
  return JSON.stringify({
    cniVersion: "1.0.0",
    name: "toolwall-node",
    plugins: [
      {
        type: "bridge",
        bridge: NODE.bridge,
        isGateway: true,
        ipMasq: true,
        hairpinMode: true,
        ipam: {
          type: "host-local",
          ranges: [[{ subnet: NODE.podCidr }]],
          routes: [{ dst: "0.0.0.0/0" }],
          dataDir: join(NODE.stateDir, "ipam"),
        },
      },
      { type: "portmap", capabilities: { portMappings: true } },
    ],
  });
}

/** Containers left in containerd's persistent store by an earlier run would come back as ghosts. */
async function purgeContainers(): Promise<void> {
  for (const task of (await ctr(["tasks", "ls", "-q"]).catch(() => "")).split("\n").filter(Boolean)) {
    await ctr(["tasks", "kill", "-s", "SIGKILL", task]).catch(() => undefined);
    await ctr(["tasks", "delete", "-f", task]).catch(() => undefined);
  }
  for (const container of (await ctr(["containers", "ls", "-q"]).catch(() => ""))
    .split("\n")
    .filter(Boolean)) {
    await ctr(["containers", "delete", container]).catch(() => undefined);
  }
}

/**
 * Imports each image whose key changed since it was last imported into this containerd, or that the
 * store no longer holds: a run on a full disk once left the stamps and lost the images, and every
 * later run's pods then waited for a pull that cannot happen.
 */
async function importImages(built: Record<ImageName, BuiltImage>, log: Log): Promise<void> {
  await mkdir(paths.importStamps(), { recursive: true });
  const held = new Set((await ctr(["images", "ls", "-q"])).split("\n").filter(Boolean));
  // The bases only feed other builds; pods run these.
  const run: ImageName[] = ["pause", "coredns", "redis", "toolwall", "peers"];
  for (const image of run.map((name) => built[name])) {
    const stamp = join(paths.importStamps(), image.name.replaceAll(/[/:]/g, "_"));
    if (held.has(image.name) && (await readFile(stamp, "utf8").catch(() => "")) === image.key) continue;
    log(`importing ${image.name} into containerd`);
    const archive = join(imagesDir(), "export.tar");
    await exportImage(image.name, archive);
    await ctr(["images", "import", "--no-unpack=false", archive]);
    await rm(archive, { force: true });
    await writeFile(stamp, image.key);
  }
}

async function writeNodeConfig(plane: ControlPlane): Promise<Record<"kubelet" | "proxy", string>> {
  const dir = join(NODE.stateDir, "config");
  await mkdir(dir, { recursive: true });
  const resolvConf = join(dir, "resolv.conf");
  // Pods resolve through CoreDNS; nothing on the node resolves names outside the cluster.
  await writeFile(resolvConf, "# toolwall test node: no upstream resolver\n");
  const kubelet = join(dir, "kubelet.yaml");
  await writeFile(
    kubelet,
    stringify({
      apiVersion: "kubelet.config.k8s.io/v1beta1",
      kind: "KubeletConfiguration",
      // These machines run cgroup v1 without systemd.
      failCgroupV1: false,
      cgroupDriver: "cgroupfs",
      failSwapOn: false,
      containerRuntimeEndpoint: `unix://${paths.socket()}`,
      authentication: {
        anonymous: { enabled: false },
        webhook: { enabled: false },
        x509: { clientCAFile: plane.files.ca },
      },
      authorization: { mode: "AlwaysAllow" },
      clusterDNS: [NODE.dnsIp],
      clusterDomain: NODE.clusterDomain,
      resolvConf,
      // Container logs in the state dir, removed with the node (the default is /var/log/pods).
      podLogsDir: join(NODE.stateDir, "pod-logs"),
      address: NODE.nodeIp,
      healthzBindAddress: "127.0.0.1",
      // The shared disk is never near full; the defaults would evict test pods on a busy machine.
      evictionHard: { "memory.available": "100Mi", "nodefs.available": "1%", "imagefs.available": "1%" },
      imageGCHighThresholdPercent: 100,
      imageGCLowThresholdPercent: 99,
      serializeImagePulls: false,
      // Status reaches the API server quickly: the scenarios wait on it.
      nodeStatusUpdateFrequency: "5s",
      syncFrequency: "10s",
      fileCheckFrequency: "5s",
    }),
  );
  const proxy = join(dir, "kube-proxy.yaml");
  await writeFile(
    proxy,
    stringify({
      apiVersion: "kubeproxy.config.k8s.io/v1alpha1",
      kind: "KubeProxyConfiguration",
      mode: "iptables",
      clientConnection: { kubeconfig: plane.kubeconfigPath },
      hostnameOverride: NODE.name,
      clusterCIDR: NODE.clusterCidr,
      bindAddress: NODE.nodeIp,
      metricsBindAddress: `${NODE.nodeIp}:10249`,
      healthzBindAddress: `${NODE.nodeIp}:10256`,
      // Leave the kernel's conntrack settings alone (global, not ours to change).
      conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: "0s", tcpCloseWaitTimeout: "0s" },
    }),
  );
  return { kubelet, proxy };
}

function coreDnsManifest(): string {
  // An unprivileged port: a non-root process gets no effective capability from `capabilities.add`.
  const corefile = `.:1053 {
    errors
    health :8080
    ready :8181
    kubernetes ${NODE.clusterDomain} in-addr.arpa ip6.arpa {
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }
    cache 30
}
`;
  const labels = { "k8s-app": "kube-dns" };
  const docs = [
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "coredns", namespace: "kube-system" } },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: "system:coredns" },
      rules: [
        {
          apiGroups: [""],
          resources: ["endpoints", "services", "pods", "namespaces"],
          verbs: ["list", "watch"],
        },
        { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: ["list", "watch"] },
      ],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: "system:coredns" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "system:coredns" },
      subjects: [{ kind: "ServiceAccount", name: "coredns", namespace: "kube-system" }],
    },
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "coredns", namespace: "kube-system" },
      data: { Corefile: corefile },
    },
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "coredns", namespace: "kube-system", labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: "coredns",
            dnsPolicy: "Default",
            containers: [
              {
                name: "coredns",
                image: images.coredns,
                imagePullPolicy: "Never",
                args: ["-conf", "/etc/coredns/Corefile"],
                ports: [
                  { name: "dns", containerPort: 1053, protocol: "UDP" },
                  { name: "dns-tcp", containerPort: 1053, protocol: "TCP" },
                ],
                readinessProbe: { httpGet: { path: "/ready", port: 8181 }, periodSeconds: 2 },
                resources: { requests: { cpu: "50m", memory: "32Mi" }, limits: { memory: "128Mi" } },
                securityContext: {
                  runAsUser: 65534,
                  allowPrivilegeEscalation: false,
                  capabilities: { drop: ["ALL"] },
                },
                volumeMounts: [{ name: "config", mountPath: "/etc/coredns" }],
              },
            ],
            volumes: [{ name: "config", configMap: { name: "coredns" } }],
          },
        },
      },
    },
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "kube-dns", namespace: "kube-system", labels },
      spec: {
        selector: labels,
        clusterIP: NODE.dnsIp,
        ports: [
          { name: "dns", port: 53, targetPort: 1053, protocol: "UDP" },
          { name: "dns-tcp", port: 53, targetPort: 1053, protocol: "TCP" },
        ],
      },
    },
  ];
  return docs.map((doc) => stringify(doc)).join("---\n");
}

function kubectlRun(
  binaries: KubeBinaries,
  kubeconfig: string,
  args: string[],
  input?: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      binaries.kubectl,
      ["--kubeconfig", kubeconfig, ...args],
      (error, stdout, stderr) => {
        if (error) reject(new Error(`kubectl ${args.join(" ")}: ${stderr || error.message}`));
        else resolve(stdout);
      },
    );
    if (input !== undefined) child.stdin!.end(input);
  });
}

/**
 * Brings the node up (tearing down anything an earlier run left). With `detached` the processes keep
 * running after this process exits (`make cluster`); `downNode()` removes them.
 */
export async function startNode(options: { detached?: boolean; log?: Log } = {}): Promise<NodeCluster> {
  const log = options.log ?? defaultLog;
  const detached = options.detached ?? false;
  let mark = Date.now();
  const lap = () => {
    const seconds = (Date.now() - mark) / 1000;
    mark = Date.now();
    return seconds;
  };
  const binaries = await ensureBinaries();
  const binariesSeconds = lap();
  const built = await ensureImages();
  const imagesSeconds = lap();

  await downNode(log);
  await mkdir(paths.logs(), { recursive: true });
  await mkdir(join(NODE.stateDir, "cni"), { recursive: true });
  await mkdir(paths.containerdRoot(), { recursive: true });
  await setUpNetwork();
  const launch = { launcher, detached, pidDir: NODE.stateDir };

  await writeFile(join(NODE.stateDir, "containerd.toml"), containerdConfig());
  await writeFile(join(NODE.stateDir, "cni", "10-toolwall-node.conflist"), cniConfig());
  const containerdLog = join(paths.logs(), "containerd.log");
  const containerd = startProcess(
    "containerd",
    ["--config", join(NODE.stateDir, "containerd.toml"), "--log-level", "warn"],
    containerdLog,
    launch,
  );
  await waitFor(
    "containerd",
    async () => (await ctr(["version"])).includes("Server"),
    containerd,
    containerdLog,
    30_000,
  );
  await purgeContainers();
  await importImages(built, log);
  const importSeconds = lap();

  const plane = await startControlPlane(binaries, {
    address: NODE.nodeIp,
    serviceCidr: NODE.serviceCidr,
    dir: join(NODE.stateDir, "control-plane"),
    launcher,
    detached,
  });
  const kubeconfig = plane.kubeconfigPath;
  const config = await writeNodeConfig(plane);
  const component = (binary: string, args: string[]) =>
    startProcess(binary, args, join(paths.logs(), `${binary.split("/").pop()}.log`), launch);
  component(binaries.kubelet, [
    `--config=${config.kubelet}`,
    `--kubeconfig=${kubeconfig}`,
    `--root-dir=${paths.kubeletRoot()}`,
    `--cert-dir=${join(NODE.stateDir, "kubelet-pki")}`,
    `--hostname-override=${NODE.name}`,
    `--node-ip=${NODE.nodeIp}`,
    "--v=1",
  ]);
  component(binaries.kubeProxy, [`--config=${config.proxy}`, "--v=1"]);
  component(binaries.kubeControllerManager, [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    `--root-ca-file=${plane.files.ca}`,
    `--service-account-private-key-file=${plane.files.saKey}`,
    `--cluster-cidr=${NODE.clusterCidr}`,
    `--service-cluster-ip-range=${NODE.serviceCidr}`,
    "--allocate-node-cidrs=false",
    "--use-service-account-credentials=true",
    "--leader-elect=false",
    "--bind-address=127.0.0.1",
    "--v=1",
  ]);
  component(binaries.kubeScheduler, [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    "--leader-elect=false",
    "--bind-address=127.0.0.1",
    "--v=1",
  ]);
  const kubectl = (args: string[], input?: string) => kubectlRun(binaries, kubeconfig, args, input);
  const ready = `jsonpath={.status.conditions[?(@.type=='Ready')].status}`;
  await eventually(
    `node Ready (logs in ${paths.logs()})`,
    async () => ((await kubectl(["get", "node", NODE.name, "-o", ready])) === "True" ? true : undefined),
    120_000,
    250,
  );
  await eventually(
    "service account kube-system/default",
    async () =>
      (await kubectl(["get", "serviceaccount", "default", "-n", "kube-system", "-o", "name"])) || undefined,
    60_000,
    250,
  );
  await kubectl(["apply", "-f", "-"], coreDnsManifest());
  await kubectl(["rollout", "status", "-n", "kube-system", "deployment/coredns", "--timeout=120s"]);
  const startSeconds = lap();
  log(`node ready: kubeconfig ${kubeconfig}`);
  return {
    server: plane.server,
    kubeconfigPath: kubeconfig,
    stateDir: NODE.stateDir,
    binaries,
    images: built,
    timings: { binaries: binariesSeconds, images: imagesSeconds, import: importSeconds, start: startSeconds },
    stop: () => downNode(log),
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function killAndWait(pids: number[], graceMs = 5000): Promise<void> {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {}
  }
  const deadline = Date.now() + graceMs;
  while (pids.some(alive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  for (const pid of pids.filter(alive)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  while (pids.some(alive)) await new Promise((resolve) => setTimeout(resolve, 50));
}

async function pidsFrom(dir: string): Promise<Record<string, number>> {
  const found: Record<string, number> = {};
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const pid = Number(await readFile(join(dir, name), "utf8"));
    if (pid > 0) found[name.replace(/\.pid$/, "")] = pid;
  }
  return found;
}

/** The shims this node's containerd started (they name its socket on their command line). */
async function shimPids(): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (cmdline.startsWith("/usr/bin/containerd-shim") && cmdline.includes(paths.socket()))
      pids.push(Number(entry));
  }
  return pids;
}

const cgroupRoot = "/sys/fs/cgroup";

/** The kubelet's cgroup trees (cgroupfs driver): kubepods under every v1 controller. */
async function podCgroups(): Promise<string[]> {
  const trees: string[] = [];
  for (const controller of await readdir(cgroupRoot).catch(() => [] as string[])) {
    const tree = join(cgroupRoot, controller, "kubepods");
    if (existsSync(tree)) trees.push(tree);
  }
  return trees;
}

async function cgroupDirs(tree: string): Promise<string[]> {
  const entries = await readdir(tree, { withFileTypes: true, recursive: true }).catch(() => []);
  const dirs = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(entry.parentPath, entry.name));
  return [...dirs.sort((a, b) => b.length - a.length), tree];
}

async function killCgroupProcesses(trees: string[]): Promise<void> {
  const pids = new Set<number>();
  for (const tree of trees) {
    for (const dir of await cgroupDirs(tree)) {
      const procs = await readFile(join(dir, "cgroup.procs"), "utf8").catch(() => "");
      for (const pid of procs.split("\n").filter(Boolean)) pids.add(Number(pid));
    }
  }
  await killAndWait([...pids], 0);
}

async function unmountUnder(prefixes: string[]): Promise<void> {
  const mountinfo = await readFile("/proc/self/mountinfo", "utf8");
  const mountPoints = mountinfo
    .split("\n")
    .map((line) => line.split(" ")[4])
    .filter(
      (point): point is string => point !== undefined && prefixes.some((prefix) => point.startsWith(prefix)),
    )
    .sort((a, b) => b.length - a.length);
  for (const point of mountPoints) await run("umount", ["-l", point], { cwd: "/" }).catch(() => undefined);
}

/**
 * What the kubelet, containerd and libcni write to fixed paths whatever their configuration: the
 * device-plugin socket, libcni's result cache for this node's networks, containerd's empty shim
 * socket dir. Parent dirs go only when empty (another runtime on the machine keeps its files).
 */
async function removeFixedPathLeftovers(): Promise<void> {
  await rm("/var/lib/kubelet/device-plugins/kubelet.sock", { force: true });
  const results = "/var/lib/cni/results";
  for (const name of await readdir(results).catch(() => [] as string[])) {
    if (name.startsWith("toolwall-node-") || name.startsWith("cni-loopback-")) {
      await rm(join(results, name), { force: true });
    }
  }
  for (const dir of [
    "/var/lib/kubelet/device-plugins",
    "/var/lib/kubelet/pki",
    "/var/lib/kubelet",
    results,
    "/var/lib/cni",
    "/run/containerd/s",
    "/run/containerd/runc/k8s.io",
    "/run/containerd/runc",
    "/run/containerd",
  ]) {
    await rmdir(dir).catch(() => undefined);
  }
}

/**
 * Removes everything the node made: processes (components, shims, containers), mounts, network
 * namespaces (the node's, with its bridge, veths and iptables chains, and the pods'), cgroups and
 * the state dir. Safe to call when nothing runs.
 */
export async function downNode(log: Log = defaultLog): Promise<void> {
  // The node's components, and etcd and the API server (started by control-plane.ts in its dir).
  const pids = {
    ...(await pidsFrom(join(NODE.stateDir, "control-plane", "pids"))),
    ...(await pidsFrom(join(NODE.stateDir, "pids"))),
  };
  const kubelet = pids.kubelet;
  if (kubelet && alive(kubelet)) await killAndWait([kubelet]);
  if (pids.containerd && alive(pids.containerd)) await purgeContainers();
  const running = Object.values(pids).filter(alive);
  if (running.length > 0) log(`stopping ${running.length} node processes`);
  await killAndWait(running);
  await killAndWait(await shimPids());
  const trees = await podCgroups();
  await killCgroupProcesses(trees);
  for (const tree of trees) {
    for (const dir of await cgroupDirs(tree)) await rmdir(dir).catch(() => undefined);
  }
  await unmountUnder([`${NODE.stateDir}/`, `${paths.containerdRoot()}/`]);
  const namespaces = await readdir("/run/netns").catch(() => [] as string[]);
  for (const name of namespaces.filter((ns) => ns === NODE.netns || ns.startsWith("cni-"))) {
    await run("ip", ["netns", "delete", name], { cwd: "/" }).catch(() => undefined);
  }
  await run("ip", ["link", "delete", NODE.hostVeth], { cwd: "/" }).catch(() => undefined);
  await rm(NODE.stateDir, { recursive: true, force: true });
  await removeFixedPathLeftovers();
}

if (import.meta.main) {
  const command = process.argv[2] ?? "up";
  if (command === "down") {
    await downNode();
  } else {
    const node = await startNode({ detached: true });
    process.stdout.write(
      `${JSON.stringify({ kubeconfig: node.kubeconfigPath, server: node.server, timings: node.timings })}\n`,
    );
  }
}
