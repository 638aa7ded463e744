import type { LlmDialect } from "../../engine/dialect.ts";
import { anthropicRequest } from "./request.ts";
import { anthropicResponse } from "./response.ts";

/** Anthropic Messages API: `POST …/v1/messages` (count_tokens is relayed untouched, batches refused: llm-route.ts). */
export const anthropicMessages: LlmDialect = {
  name: "anthropic-messages",
  handles: (method, path) => method === "POST" && /\/messages$/.test(path),
  request: anthropicRequest,
  response: anthropicResponse,
};
