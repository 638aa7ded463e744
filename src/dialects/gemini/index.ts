import type { LlmDialect } from "../../engine/dialect.ts";
import { geminiRequest } from "./request.ts";
import { geminiResponse } from "./response.ts";

/** Gemini API: `models/{m}:generateContent` and `:streamGenerateContent` (with or without alt=sse). */
export const gemini: LlmDialect = {
  name: "gemini",
  handles: (method, path) => method === "POST" && /:(stream)?generateContent$/i.test(path),
  request: geminiRequest,
  response: geminiResponse,
};
