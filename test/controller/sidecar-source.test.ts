import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openPolicySource } from "../../src/bundle/sidecar-source.ts";
import { MemoryAuditSink } from "../../src/telemetry/audit.ts";

const policyYaml = `apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: { name: research, namespace: agents }
spec:
  podSelector: { matchLabels: { app: research } }
  toolPolicy: { rules: [{ action: Deny, tools: ["delete_*"] }] }
`;

describe("sidecar policy source flags", () => {
  const audit = new MemoryAuditSink();

  it("--policy-file gives the file's policies that select this pod, ready at once, never expired", async () => {
    const dir = await mkdtemp(join(tmpdir(), "toolwall-source-"));
    try {
      const file = join(dir, "policy.yaml");
      await writeFile(file, policyYaml);
      const env = { TOOLWALL_POD_NAMESPACE: "agents" };
      const selected = await openPolicySource(
        { "policy-file": [file] },
        { audit, env, labels: { app: "research" } },
      );
      expect(selected.ready()).toBe(true);
      expect(selected.expired()).toBe(false);
      expect(selected.current().evaluate({ tool: "delete_repo" }).action).toBe("deny");
      const unselected = await openPolicySource(
        { "policy-file": [file] },
        { audit, env, labels: { app: "other" } },
      );
      expect(unselected.current().evaluate({ tool: "delete_repo" }).action).toBe("allow");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("rejects incomplete or conflicting flags with a clear message", async () => {
    await expect(openPolicySource({}, { audit, env: {} })).rejects.toThrow(
      /--controller-url or --policy-file/,
    );
    await expect(
      openPolicySource({ "controller-url": "http://127.0.0.1:1" }, { audit, env: {} }),
    ).rejects.toThrow(/needs --token-file and --bundle-dir/);
    await expect(
      openPolicySource(
        { "controller-url": "http://127.0.0.1:1", "token-file": "t", "bundle-dir": "d" },
        { audit, env: {} },
      ),
    ).rejects.toThrow(/TOOLWALL_POD_NAME/);
    await expect(
      openPolicySource({ "controller-url": "http://127.0.0.1:1", "policy-file": ["x"] }, { audit, env: {} }),
    ).rejects.toThrow(/exclude each other/);
  });
});
