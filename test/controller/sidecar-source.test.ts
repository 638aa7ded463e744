import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openPolicySource } from "../../src/cli/policy-source.ts";
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
  const pod = { namespace: "agents", pod: "research-1" };

  it("--policy-file gives every policy of the files, ready at once, never expired", async () => {
    const dir = await mkdtemp(join(tmpdir(), "toolwall-source-"));
    try {
      const file = join(dir, "policy.yaml");
      await writeFile(file, policyYaml);
      const source = await openPolicySource({ "policy-file": [file] }, { audit, ...pod });
      expect(source.ready()).toBe(true);
      expect(source.expired()).toBe(false);
      expect(source.current().evaluate({ tool: "delete_repo" }).action).toBe("deny");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("rejects incomplete or conflicting flags with a clear message", async () => {
    await expect(openPolicySource({}, { audit, ...pod })).rejects.toThrow(
      /--controller-url or --policy-file/,
    );
    await expect(
      openPolicySource({ "controller-url": "http://127.0.0.1:1" }, { audit, ...pod }),
    ).rejects.toThrow(/needs --token-file and --bundle-dir/);
    await expect(
      openPolicySource({ "controller-url": "http://127.0.0.1:1", "policy-file": ["x"] }, { audit, ...pod }),
    ).rejects.toThrow(/exclude each other/);
  });
});
