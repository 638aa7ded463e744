import type { LlmDialect } from "../../engine/dialect.ts";
import { openaiChatRequest } from "./request.ts";
import { openaiChatResponse } from "./response.ts";

/**
 * OpenAI Chat Completions (`POST …/chat/completions`), also OpenAI-compatible servers, and the
 * retrieval of a stored completion (`GET …/chat/completions/{id}`), which answers with the same
 * choices (no request body: no tool counts as offered).
 */
export const openaiChat: LlmDialect = {
  name: "openai-chat",
  handles: (method, path) =>
    (method === "POST" && /\/chat\/completions$/.test(path)) ||
    (method === "GET" && /\/chat\/completions\/[^/]+$/.test(path)),
  request: openaiChatRequest,
  response: openaiChatResponse,
};
