import { builtinProviders, providerRoutes } from "../../src/dialects/providers.ts";
import { PolicySet } from "../../src/policy/evaluate.ts";
import { parsePolicies } from "../../src/policy/load.ts";
import { type LocalProxy, startLocalProxy } from "../../src/runtime/local.ts";
import { MemoryAuditSink } from "../../src/telemetry/audit.ts";
import { type ReplayServer, startReplayServer } from "../helpers/replay.ts";

/** The policy every dialect test runs under: a name rule, an argument rule, declared tools required. */
export const testPolicy = `
apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: { name: dialect-tests, namespace: agents }
spec:
  llm: { requireDeclaredTools: true }
  toolPolicy:
    rules:
      - { action: Deny, tools: [delete_file], reason: deleting files is not allowed }
      - action: Deny
        tools: [Bash]
        when: { any: [{ path: command, op: Matches, value: "rm\\\\s+-rf" }] }
        reason: dangerous shell command
`;

export const blockText = {
  deleteFile: "Tool 'delete_file' was blocked by policy: deleting files is not allowed",
  bash: "Tool 'Bash' was blocked by policy: dangerous shell command",
  bashTruncated:
    "Tool 'Bash' was blocked by policy: the call's arguments were cut short or unparsable and a rule needs them",
};

export interface Harness {
  replay: ReplayServer;
  proxy: LocalProxy;
  audit: MemoryAuditSink;
  /** Base URL of the proxy's route for a provider, e.g. base("anthropic"). */
  base(provider: "anthropic" | "openai" | "gemini"): string;
  close(): Promise<void>;
}

export async function startHarness(policyYaml = testPolicy): Promise<Harness> {
  const replay = await startReplayServer();
  const audit = new MemoryAuditSink();
  const policies = PolicySet.fromDocuments(parsePolicies(policyYaml, "test.yaml").policies);
  const proxy = await startLocalProxy({
    policies,
    audit,
    providers: providerRoutes(
      Object.fromEntries(Object.keys(builtinProviders).map((name) => [name, replay.url])),
    ),
    listen: { host: "127.0.0.1", port: 0 },
    state: {},
    log: () => {},
  });
  return {
    replay,
    proxy,
    audit,
    base: (provider) => `${proxy.url}/${provider}`,
    async close() {
      await proxy.close(1000);
      await replay.close();
    },
  };
}

/** Cut points that split every multi-byte UTF-8 character of `bytes` in the middle. */
export function cutsInsideCharacters(bytes: Buffer): number[] {
  const cuts: number[] = [];
  for (let i = 1; i < bytes.length; i++) if ((bytes[i]! & 0xc0) === 0x80) cuts.push(i);
  return cuts;
}
