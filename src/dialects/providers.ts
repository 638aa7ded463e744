import type { LlmDialect } from "../engine/dialect.ts";
import { anthropicMessages } from "./anthropic-messages/index.ts";
import { gemini } from "./gemini/index.ts";
import { openaiChat } from "./openai-chat/index.ts";
import { openaiResponses } from "./openai-responses/index.ts";

export interface ProviderRoute {
  /** Route prefix, e.g. "/anthropic". */
  prefix: string;
  upstream: URL;
  dialects: readonly LlmDialect[];
}

/**
 * The built-in LLM providers: route prefix, default upstream, the dialects spoken there and the host
 * globs they answer on (what the sidecar always inspects).
 */
export const builtinProviders: Record<
  string,
  { upstream: string; dialects: readonly LlmDialect[]; hosts: readonly string[] }
> = {
  anthropic: {
    upstream: "https://api.anthropic.com",
    dialects: [anthropicMessages],
    hosts: ["api.anthropic.com"],
  },
  openai: {
    upstream: "https://api.openai.com",
    dialects: [openaiChat, openaiResponses],
    hosts: ["api.openai.com"],
  },
  gemini: {
    upstream: "https://generativelanguage.googleapis.com",
    dialects: [gemini],
    hosts: ["generativelanguage.googleapis.com", "aiplatform.googleapis.com", "*-aiplatform.googleapis.com"],
  },
};

/** Every built-in provider host glob with the dialects spoken there. */
export const builtinProviderHosts: readonly { host: string; dialects: readonly LlmDialect[] }[] =
  Object.values(builtinProviders).flatMap((provider) =>
    provider.hosts.map((host) => ({ host, dialects: provider.dialects })),
  );

/** Routes for every built-in provider, with `overrides` (provider → base URL) applied. */
export function providerRoutes(overrides: Readonly<Record<string, string>> = {}): ProviderRoute[] {
  for (const name of Object.keys(overrides)) {
    if (!(name in builtinProviders)) {
      throw new Error(`unknown provider '${name}' (known: ${Object.keys(builtinProviders).join(", ")})`);
    }
  }
  return Object.entries(builtinProviders).map(([name, provider]) => ({
    prefix: `/${name}`,
    upstream: new URL(overrides[name] ?? provider.upstream),
    dialects: provider.dialects,
  }));
}
