import type { CompiledPolicy } from "./compile.ts";
import type { ServerSpec } from "./types.ts";

export interface DeclaredServer {
  name: string;
  transport: ServerSpec["transport"];
  /** Absent for Stdio servers. */
  url?: URL;
}

/**
 * The MCP servers the applicable policies declare, by name (case-insensitive). Two policies may
 * declare the same server only with the same transport and URL: anything else is ambiguous routing.
 * Built once per policy set: read it as `PolicySet.servers`.
 */
export function declaredServers(set: { policies: readonly CompiledPolicy[] }): Map<string, DeclaredServer> {
  const servers = new Map<string, DeclaredServer>();
  for (const policy of set.policies) {
    for (const spec of policy.spec.servers ?? []) {
      const key = spec.name.toLowerCase();
      let url: URL | undefined;
      if (spec.url !== undefined) {
        try {
          url = new URL(spec.url);
        } catch {
          throw new Error(`${policy.id}: server '${spec.name}' has an invalid url '${spec.url}'`);
        }
      }
      const declared: DeclaredServer = {
        name: spec.name,
        transport: spec.transport,
        ...(url ? { url } : {}),
      };
      const earlier = servers.get(key);
      if (earlier && (earlier.transport !== declared.transport || earlier.url?.href !== declared.url?.href)) {
        throw new Error(
          `${policy.id}: server '${spec.name}' is declared differently by another policy (${earlier.transport} ${earlier.url?.href ?? ""})`,
        );
      }
      if (!earlier) servers.set(key, declared);
    }
  }
  return servers;
}
