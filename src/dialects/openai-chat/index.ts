import type { LlmDialect } from "../../proxy/dialect.ts";
import { openaiChatRequest } from "./request.ts";
import { openaiChatResponse } from "./response.ts";

/** OpenAI Chat Completions (`POST …/chat/completions`), also OpenAI-compatible servers. */
export const openaiChat: LlmDialect = {
  name: "openai-chat",
  handles: (method, path) => method === "POST" && /\/chat\/completions$/.test(path),
  request: openaiChatRequest,
  response: openaiChatResponse,
};
