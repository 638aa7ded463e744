/**
 * The MCPPolicy CRD on the real API server: it installs, every example policy is accepted, and
 * invalid policies are refused by the schema and by each CEL rule with its message.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { parseAllDocuments, stringify } from "yaml";
import { CONTROL_PLANE_TIMEOUT_MS, controlPlane, describeWithControlPlane, kubectl } from "./cluster.ts";
import type { ControlPlaneInfo } from "./global-setup.ts";

const root = join(import.meta.dirname, "..", "..");
const examplesDir = join(root, "examples", "policies");
const namespace = "crd-test";
let plane: ControlPlaneInfo;

/** Installs the CRD once per control plane; other test files call this too. */
export async function installCrds(target: ControlPlaneInfo): Promise<void> {
  const applied = await kubectl(target, [
    "apply",
    "--server-side",
    "--force-conflicts",
    "-f",
    join(root, "crds"),
  ]);
  if (applied.code !== 0) throw new Error(`kubectl apply -f crds/ failed: ${applied.stderr}`);
  const established = await kubectl(target, [
    "wait",
    "--for=condition=Established",
    "crd/mcppolicies.toolwall.io",
    "--timeout=60s",
  ]);
  if (established.code !== 0) throw new Error(`CRD not established: ${established.stderr}`);
  await waitForAdmissionPolicy(target);
}

/** A ValidatingAdmissionPolicy takes effect a moment after it is created: probe until it refuses. */
async function waitForAdmissionPolicy(target: ControlPlaneInfo): Promise<void> {
  const probe = policy("vap-probe", {
    toolPolicy: { rules: [{ action: "Deny", tools: ["x"], when: { all: [{ path: "a", op: "Equals" }] } }] },
  });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const result = await kubectl(target, ["create", "--dry-run=server", "-f", "-"], probe);
    if (result.stderr.includes("ValidatingAdmissionPolicy")) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error("the MCPPolicy ValidatingAdmissionPolicy did not take effect within 30 s");
}

function policy(name: string, spec: Record<string, unknown>): string {
  return stringify({
    apiVersion: "toolwall.io/v1alpha1",
    kind: "MCPPolicy",
    metadata: { name, namespace },
    spec,
  });
}

async function refusal(manifest: string): Promise<string> {
  const result = await kubectl(plane, ["create", "--dry-run=server", "-f", "-"], manifest);
  expect(result.code, `expected the API server to refuse:\n${manifest}`).not.toBe(0);
  return result.stderr;
}

const examples = existsSync(examplesDir)
  ? readdirSync(examplesDir).filter((f) => /\.ya?ml$/.test(f) || f.endsWith(".json"))
  : [];

function namespacesIn(file: string): string[] {
  return parseAllDocuments(readFileSync(join(examplesDir, file), "utf8"))
    .map((doc) => (doc.toJSON() as { metadata?: { namespace?: string } } | null)?.metadata?.namespace)
    .filter((n): n is string => typeof n === "string");
}

/** The namespaces the example files name (they are created first, as an operator would). */
function exampleNamespaces(): string[] {
  return [...new Set(examples.flatMap(namespacesIn))];
}

describeWithControlPlane("MCPPolicy CRD on a real API server", () => {
  beforeAll(async () => {
    plane = await controlPlane();
    for (const name of [namespace, ...exampleNamespaces()]) {
      const created = await kubectl(plane, ["create", "namespace", name]);
      if (created.code !== 0 && !created.stderr.includes("AlreadyExists")) throw new Error(created.stderr);
    }
    await installCrds(plane);
  }, CONTROL_PLANE_TIMEOUT_MS);

  it("is installed and served", async () => {
    const result = await kubectl(plane, ["get", "mcpp", "-n", namespace, "-o", "name"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
  });

  it("accepts a minimal policy and fills in the defaults", async () => {
    const result = await kubectl(
      plane,
      ["create", "--dry-run=server", "-o", "json", "-f", "-"],
      policy("minimal", {}),
    );
    expect(result.stderr).toBe("");
    const spec = JSON.parse(result.stdout).spec;
    expect(spec).toMatchObject({ mode: "Enforce", podSelector: {}, toolPolicy: { default: "Allow" } });
    expect(spec.maxStaleness).toBe("10m");
  });

  it("accepts the policy of the architecture document", async () => {
    const result = await kubectl(
      plane,
      ["create", "--dry-run=server", "-f", "-"],
      policy("architecture", {
        podSelector: { matchLabels: { app: "research" } },
        mode: "Enforce",
        servers: [
          { name: "github", transport: "StreamableHTTP", url: "https://mcp.github.com/mcp" },
          {
            name: "filesystem",
            transport: "Stdio",
            command: ["npx", "@modelcontextprotocol/server-filesystem"],
          },
        ],
        toolPolicy: {
          default: "Allow",
          rules: [
            { action: "Deny", servers: ["*"], tools: ["delete_*"], reason: "destructive" },
            {
              action: "Allow",
              servers: ["github"],
              tools: ["create_issue"],
              when: {
                all: [
                  { path: "owner", op: "Equals", value: "acme" },
                  { path: "repo", op: "In", values: ["api", "web"] },
                ],
              },
            },
          ],
        },
        egress: { default: "Allow", rules: [{ action: "Deny", cidrs: ["169.254.169.254/32"] }] },
      }),
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
  });

  it.concurrent.each(examples.length > 0 ? examples : ["(none yet)"])("accepts example %s", async (file) => {
    if (file === "(none yet)") return;
    // Examples that name their namespace go there; the others to the test namespace.
    const target = namespacesIn(file).length > 0 ? [] : ["--namespace", namespace];
    const result = await kubectl(plane, ["apply", ...target, "-f", join(examplesDir, file)]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
  });

  // Schema (OpenAPI) validation.
  it.concurrent("refuses a mode outside the enum", async () => {
    expect(await refusal(policy("bad-mode", { mode: "Block" }))).toMatch(
      /spec\.mode: Unsupported value: "Block": supported values: "Enforce", "Audit"/,
    );
  });

  it.concurrent("refuses a server name that is not a DNS label", async () => {
    expect(
      await refusal(policy("bad-name", { servers: [{ name: "GitHub!", url: "https://x.example" }] })),
    ).toMatch(
      /spec\.servers\[0\]\.name: Invalid value: "GitHub!": spec\.servers\[0\]\.name in body should match/,
    );
  });

  it.concurrent("refuses a duration that is not a Kubernetes duration", async () => {
    expect(await refusal(policy("bad-duration", { maxStaleness: "ten minutes" }))).toMatch(
      /spec\.maxStaleness: Invalid value: "ten minutes"/,
    );
  });

  it.concurrent("refuses a pin that is not a sha256", async () => {
    expect(
      await refusal(
        policy("bad-pin", { pinning: { pins: [{ server: "github", tool: "x", sha256: "abc" }] } }),
      ),
    ).toMatch(/spec\.pinning\.pins\[0\]\.sha256: Invalid value: "abc"/);
  });

  it.concurrent("refuses a policy without spec", async () => {
    const manifest = stringify({
      apiVersion: "toolwall.io/v1alpha1",
      kind: "MCPPolicy",
      metadata: { name: "no-spec", namespace },
    });
    expect(await refusal(manifest)).toMatch(/spec: Required value/);
  });

  // One test per CEL rule (x-kubernetes-validations).
  it.concurrent("CEL: a podSelector In expression needs values", async () => {
    const spec = { podSelector: { matchExpressions: [{ key: "app", operator: "In" }] } };
    expect(await refusal(policy("cel-selector", spec))).toContain(
      "In and NotIn need values; Exists and DoesNotExist take none",
    );
  });

  it.concurrent("CEL: a podSelector Exists expression takes no values", async () => {
    const spec = { podSelector: { matchExpressions: [{ key: "app", operator: "Exists", values: ["x"] }] } };
    expect(await refusal(policy("cel-selector-exists", spec))).toContain(
      "In and NotIn need values; Exists and DoesNotExist take none",
    );
  });

  it.concurrent("CEL: a Stdio server needs a command and no url", async () => {
    const spec = { servers: [{ name: "fs", transport: "Stdio", url: "https://x.example" }] };
    expect(await refusal(policy("cel-stdio", spec))).toContain(
      "StreamableHTTP and SSE servers need url (and no command); Stdio servers need command (and no url)",
    );
  });

  it.concurrent("CEL: an HTTP server needs a url", async () => {
    const spec = { servers: [{ name: "github" }] };
    expect(await refusal(policy("cel-http", spec))).toContain(
      "StreamableHTTP and SSE servers need url (and no command); Stdio servers need command (and no url)",
    );
  });

  // The condition rules live in a ValidatingAdmissionPolicy (crds/toolwall.io_mcppolicy-conditions.yaml).
  it.concurrent("admission policy: In and NotIn conditions take values, not value", async () => {
    const when = { all: [{ path: "repo", op: "In", value: "api" }] };
    const spec = { toolPolicy: { rules: [{ action: "Allow", tools: ["x"], when }] } };
    expect(await refusal(policy("vap-in", spec))).toContain(
      "In and NotIn take values (a list), every other op takes no values",
    );
  });

  it.concurrent("admission policy: an Equals condition needs a value", async () => {
    const when = { any: [{ path: "owner", op: "Equals" }] };
    const spec = { toolPolicy: { rules: [{ action: "Deny", tools: ["x"], when }] } };
    expect(await refusal(policy("vap-value", spec))).toContain(
      "this op needs value; Exists and NotExists take neither value nor values",
    );
  });

  it.concurrent("CEL: when needs all or any", async () => {
    const spec = { toolPolicy: { rules: [{ action: "Deny", tools: ["x"], when: {} }] } };
    expect(await refusal(policy("cel-when", spec))).toContain("when needs all or any");
  });

  it.concurrent("CEL: an egress rule needs hosts or cidrs", async () => {
    const spec = { egress: { rules: [{ action: "Deny", ports: [22] }] } };
    expect(await refusal(policy("cel-egress", spec))).toContain("an egress rule needs hosts or cidrs");
  });
});
