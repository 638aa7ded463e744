import type { LlmDialect } from "../../proxy/dialect.ts";
import { openaiResponsesRequest } from "./request.ts";
import { openaiResponsesResponse } from "./response.ts";

/** OpenAI Responses API (`POST …/responses`). */
export const openaiResponses: LlmDialect = {
  name: "openai-responses",
  handles: (method, path) => method === "POST" && /\/responses$/.test(path),
  request: openaiResponsesRequest,
  response: openaiResponsesResponse,
};
