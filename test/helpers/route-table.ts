/**
 * One-off route lookups over policy documents for tests: the pipeline keeps its RouteTable compiled
 * with the policy set, these build one per call.
 */

import type { InspectedConnection } from "../../src/dataplane/listener.ts";
import { type McpRouting, RouteTable } from "../../src/dataplane/pipeline.ts";
import type { LlmDialect } from "../../src/engine/dialect.ts";
import type { PolicyDocument } from "../../src/policy/types.ts";

export function llmDialectsFor(
  policies: readonly PolicyDocument[],
  name: string,
  port: number,
  address = "",
): readonly LlmDialect[] | undefined {
  return new RouteTable(policies).llmDialects({ name, port, address });
}

export function mcpRouting(
  policies: readonly PolicyDocument[],
  connection: Pick<InspectedConnection, "serverName" | "port" | "tls"> & {
    originalDestination?: { address: string };
  },
  pathname: string,
): McpRouting | undefined {
  return new RouteTable(policies).mcp(
    connection.tls,
    {
      name: connection.serverName,
      port: connection.port,
      address: connection.originalDestination?.address ?? "",
    },
    pathname,
  );
}
