import type { LlmDialect } from "../../engine/dialect.ts";
import { openaiResponsesRequest } from "./request.ts";
import { openaiResponsesResponse } from "./response.ts";

/**
 * OpenAI Responses API: `POST …/responses`, and every other route that answers with a response's
 * output — retrieve (`GET …/responses/{id}`, streamed with `?stream=true`: the SDK's
 * `responses.stream({response_id})` and background mode's polling) and cancel. Those carry no
 * request body, so no tool counts as offered: with `requireDeclaredTools` their calls are denied.
 */
export const openaiResponses: LlmDialect = {
  name: "openai-responses",
  handles: (method, path) =>
    (method === "POST" && /\/responses(\/[^/]+\/cancel)?$/.test(path)) ||
    (method === "GET" && /\/responses\/[^/]+$/.test(path)),
  request: openaiResponsesRequest,
  response: openaiResponsesResponse,
};
