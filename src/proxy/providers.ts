import { anthropicMessages } from "../dialects/anthropic-messages/index.ts";
import { gemini } from "../dialects/gemini/index.ts";
import { openaiChat } from "../dialects/openai-chat/index.ts";
import { openaiResponses } from "../dialects/openai-responses/index.ts";
import type { LlmDialect } from "./dialect.ts";
import type { ProviderRoute } from "./local.ts";

/** The built-in LLM providers: route prefix, default upstream, the dialects spoken there. */
export const builtinProviders: Record<string, { upstream: string; dialects: readonly LlmDialect[] }> = {
  anthropic: { upstream: "https://api.anthropic.com", dialects: [anthropicMessages] },
  openai: { upstream: "https://api.openai.com", dialects: [openaiChat, openaiResponses] },
  gemini: { upstream: "https://generativelanguage.googleapis.com", dialects: [gemini] },
};

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
