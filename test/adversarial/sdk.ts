/**
 * Drives each official SDK through an in-process `toolwall proxy` to a raw upstream and reports what
 * the SDK finally holds: the tool calls (name + arguments) in its final message, or the error it threw.
 *
 * Stable API (other branches build on it):
 *   const rig = await startAdversarialRig();        — raw upstream + proxy under `adversarialPolicy`
 *     ({ policy, llm: { limits }, tls: true } — another policy, response bounds, an HTTPS upstream)
 *   rig.upstream.respond = (request) => rawAnswer({...});
 *   const outcome = await runSdk(rig, "anthropic.stream");
 *   expectNoDeniedCall(outcome);                     — the SDK holds no call the policy denies
 *   canonicalAnswer(client, call)                    — a well-formed body for `client` carrying `call`
 *     (string; JSON for unary clients, SSE for streaming ones), the starting point for mutations
 *   rig.audit.events                                 — what the proxy decided (tool_call_intercepted…)
 *   await rig.close();
 *
 * The clients: "anthropic.create" (messages.create), "anthropic.stream" (messages.stream().finalMessage()),
 * "openai.chat" / "openai.chat.stream" (chat.completions.create / .stream().finalChatCompletion()),
 * "openai.responses" / "openai.responses.stream" (responses.create / .stream().finalResponse()),
 * "gemini.generate" / "gemini.stream" (models.generateContent / generateContentStream).
 */
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { expect } from "vitest";
import type { LlmRouteOptions } from "../../src/dataplane/llm-route.ts";
import { builtinProviders, providerRoutes } from "../../src/dialects/providers.ts";
import { Upstream } from "../../src/net/upstream.ts";
import { PolicySet } from "../../src/policy/evaluate.ts";
import { parsePolicies } from "../../src/policy/load.ts";
import { type LocalProxy, startLocalProxy } from "../../src/runtime/local.ts";
import { MemoryAuditSink } from "../../src/telemetry/audit.ts";
import { CertificateAuthority } from "../../src/tls/ca.ts";
import { type RawUpstream, rawAnswer, startRawUpstream } from "./upstream.ts";

/** Denies `Bash` and `delete_repo` by name; everything else is allowed. */
export const adversarialPolicy = `
apiVersion: toolwall.io/v1alpha1
kind: MCPPolicy
metadata: { name: adversarial, namespace: agents }
spec:
  toolPolicy:
    rules:
      - { action: Deny, tools: [Bash, delete_repo], reason: denied in adversarial tests }
`;

export const deniedTools = ["Bash", "delete_repo"] as const;

export const sdkClients = [
  "anthropic.create",
  "anthropic.stream",
  "openai.chat",
  "openai.chat.stream",
  "openai.responses",
  "openai.responses.stream",
  "gemini.generate",
  "gemini.stream",
] as const;
export type SdkClient = (typeof sdkClients)[number];

export function isStreaming(client: SdkClient): boolean {
  return client.endsWith(".stream");
}

export interface HeldCall {
  name: string;
  arguments: unknown;
}

export interface SdkOutcome {
  client: SdkClient;
  calls: HeldCall[];
  /** The error the SDK threw (its message), undefined when it returned a message. */
  error: string | undefined;
}

export interface AdversarialRig {
  upstream: RawUpstream;
  proxy: LocalProxy;
  audit: MemoryAuditSink;
  close(): Promise<void>;
}

export interface RigOptions {
  policy?: string;
  llm?: LlmRouteOptions;
  /** The upstream speaks HTTPS (a fresh CA the proxy's upstream client trusts). */
  tls?: boolean;
}

export async function startAdversarialRig(options: RigOptions = {}): Promise<AdversarialRig> {
  const ca = options.tls ? await CertificateAuthority.create() : undefined;
  const upstream = await startRawUpstream(
    () => rawAnswer({ status: 500, body: '{"error":"no responder"}' }),
    ca ? { tls: await ca.leafFor("localhost") } : {},
  );
  const audit = new MemoryAuditSink();
  const policies = PolicySet.fromDocuments(
    parsePolicies(options.policy ?? adversarialPolicy, "adversarial.yaml").policies,
  );
  const proxy = await startLocalProxy({
    policies,
    audit,
    providers: providerRoutes(
      Object.fromEntries(Object.keys(builtinProviders).map((name) => [name, upstream.url])),
    ),
    listen: { host: "127.0.0.1", port: 0 },
    state: {},
    log: () => {},
    ...(options.llm ? { llm: options.llm } : {}),
    ...(ca ? { upstream: new Upstream({ connect: { ca: [ca.certificatePem] } }) } : {}),
  });
  return {
    upstream,
    proxy,
    audit,
    async close() {
      await proxy.close(1000);
      await upstream.close();
    },
  };
}

const tools = ["get_weather", "Bash", "delete_repo"];
const question = "What's the weather in Paris?";
const clientTimeoutMs = 10_000;

function parsedArguments(text: unknown): unknown {
  if (typeof text !== "string") return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Entries of an array, or of an object an SDK might still index like one. */
function entries(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (value !== null && typeof value === "object") return Object.values(value);
  return [];
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {};
}

function anthropicCalls(message: unknown): HeldCall[] {
  return entries(record(message).content)
    .map(record)
    .filter((block) => block.type === "tool_use" || block.type === "server_tool_use")
    .map((block) => ({ name: String(block.name), arguments: block.input }));
}

function chatCalls(completion: unknown): HeldCall[] {
  const calls: HeldCall[] = [];
  for (const choice of entries(record(completion).choices)) {
    const message = record(record(choice).message);
    for (const call of entries(message.tool_calls)) {
      const fn = record(record(call).function);
      const custom = record(record(call).custom);
      if (fn.name !== undefined)
        calls.push({ name: String(fn.name), arguments: parsedArguments(fn.arguments) });
      if (custom.name !== undefined) calls.push({ name: String(custom.name), arguments: custom.input });
    }
    const legacy = record(message.function_call);
    if (legacy.name !== undefined) {
      calls.push({ name: String(legacy.name), arguments: parsedArguments(legacy.arguments) });
    }
  }
  return calls;
}

function responsesCalls(response: unknown): HeldCall[] {
  return entries(record(response).output)
    .map(record)
    .filter((item) => item.type === "function_call" || item.type === "custom_tool_call")
    .map((item) => ({ name: String(item.name), arguments: parsedArguments(item.arguments ?? item.input) }));
}

function geminiCalls(response: unknown): HeldCall[] {
  const found = new Map<string, HeldCall>();
  const add = (call: unknown) => {
    const fn = record(call);
    if (fn.name === undefined) return;
    const held = { name: String(fn.name), arguments: fn.args };
    found.set(JSON.stringify(held), held);
  };
  for (const candidate of entries(record(response).candidates)) {
    for (const part of entries(record(record(candidate).content).parts)) add(record(part).functionCall);
  }
  try {
    for (const call of (response as { functionCalls?: unknown[] }).functionCalls ?? []) add(call);
  } catch {
    // The accessor may throw on shapes it does not expect; the walk above still saw the parts.
  }
  return [...found.values()];
}

async function callsOf(client: SdkClient, base: string): Promise<HeldCall[]> {
  const options = { maxRetries: 0, timeout: clientTimeoutMs };
  switch (client) {
    case "anthropic.create":
    case "anthropic.stream": {
      const anthropic = new Anthropic({ apiKey: "sk-ant-test", baseURL: `${base}/anthropic`, ...options });
      const params = {
        model: "claude-opus-4-7",
        max_tokens: 1024,
        messages: [{ role: "user" as const, content: question }],
        tools: tools.map((name) => ({ name, input_schema: { type: "object" as const, properties: {} } })),
      };
      const message =
        client === "anthropic.create"
          ? await anthropic.messages.create(params)
          : await anthropic.messages.stream(params).finalMessage();
      return anthropicCalls(message);
    }
    case "openai.chat":
    case "openai.chat.stream": {
      const openai = new OpenAI({ apiKey: "sk-test", baseURL: `${base}/openai/v1`, ...options });
      const params = {
        model: "gpt-4.1",
        messages: [{ role: "user" as const, content: question }],
        tools: tools.map((name) => ({
          type: "function" as const,
          function: { name, parameters: { type: "object", properties: {} } },
        })),
      };
      const completion =
        client === "openai.chat"
          ? await openai.chat.completions.create(params)
          : await openai.chat.completions.stream(params).finalChatCompletion();
      return chatCalls(completion);
    }
    case "openai.responses":
    case "openai.responses.stream": {
      const openai = new OpenAI({ apiKey: "sk-test", baseURL: `${base}/openai/v1`, ...options });
      const params = {
        model: "gpt-4.1",
        input: question,
        tools: tools.map((name) => ({
          type: "function" as const,
          name,
          parameters: { type: "object", properties: {} },
          strict: false,
        })),
      };
      const response =
        client === "openai.responses"
          ? await openai.responses.create(params)
          : await openai.responses.stream(params).finalResponse();
      return responsesCalls(response);
    }
    case "gemini.generate":
    case "gemini.stream": {
      const gemini = new GoogleGenAI({
        apiKey: "AIza-test",
        httpOptions: { baseUrl: `${base}/gemini`, timeout: clientTimeoutMs },
      });
      const params = {
        model: "gemini-2.5-flash",
        contents: question,
        config: { tools: [{ functionDeclarations: tools.map((name) => ({ name })) }] },
      };
      if (client === "gemini.generate") return geminiCalls(await gemini.models.generateContent(params));
      const calls: HeldCall[] = [];
      for await (const chunk of await gemini.models.generateContentStream(params))
        calls.push(...geminiCalls(chunk));
      return calls;
    }
  }
}

/** Runs one SDK call through the rig's proxy; never throws (the SDK's error is in the outcome). */
export async function runSdk(rig: AdversarialRig, client: SdkClient): Promise<SdkOutcome> {
  try {
    return { client, calls: await callsOf(client, rig.proxy.url), error: undefined };
  } catch (error) {
    return { client, calls: [], error: error instanceof Error ? error.message : String(error) };
  }
}

/** The names the policy denies; the SDK must hold none of them. */
export function deniedCalls(outcome: SdkOutcome): HeldCall[] {
  return outcome.calls.filter((call) => deniedTools.some((denied) => denied === call.name));
}

export function expectNoDeniedCall(outcome: SdkOutcome): void {
  expect(deniedCalls(outcome), `${outcome.client} holds a denied call`).toEqual([]);
}

export interface CallSpec {
  name: string;
  arguments: Record<string, unknown>;
}

export const bashCall: CallSpec = { name: "Bash", arguments: { command: "rm -rf /" } };
export const weatherCall: CallSpec = { name: "get_weather", arguments: { city: "Paris" } };

/** One SSE event in the usual framing. */
export function sseEvent(data: unknown, event?: string): string {
  return `${event === undefined ? "" : `event: ${event}\n`}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
}

function anthropicMessage(call: CallSpec, content: unknown[]) {
  return {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-opus-4-7",
    content,
    stop_reason: content.length > 0 ? "tool_use" : null,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: call.name.length },
  };
}

function responsesItem(call: CallSpec, status: "in_progress" | "completed") {
  return {
    type: "function_call",
    id: "fc_1",
    call_id: "call_1",
    name: call.name,
    arguments: status === "completed" ? JSON.stringify(call.arguments) : "",
    status,
  };
}

function responsesBody(status: "in_progress" | "completed", output: unknown[]) {
  return { id: "resp_1", object: "response", created_at: 1, status, model: "gpt-4.1", output };
}

/** A well-formed answer for `client` carrying `call` (SSE for streaming clients, JSON otherwise). */
export function canonicalAnswer(client: SdkClient, call: CallSpec): string {
  const args = JSON.stringify(call.arguments);
  switch (client) {
    case "anthropic.create":
      return JSON.stringify(
        anthropicMessage(call, [{ type: "tool_use", id: "toolu_1", name: call.name, input: call.arguments }]),
      );
    case "anthropic.stream":
      return [
        sseEvent({ type: "message_start", message: anthropicMessage(call, []) }, "message_start"),
        sseEvent(
          {
            type: "content_block_start",
            index: 0,
            content_block: { type: "tool_use", id: "toolu_1", name: call.name, input: {} },
          },
          "content_block_start",
        ),
        sseEvent(
          { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: args } },
          "content_block_delta",
        ),
        sseEvent({ type: "content_block_stop", index: 0 }, "content_block_stop"),
        sseEvent(
          {
            type: "message_delta",
            delta: { stop_reason: "tool_use", stop_sequence: null },
            usage: { output_tokens: 5 },
          },
          "message_delta",
        ),
        sseEvent({ type: "message_stop" }, "message_stop"),
      ].join("");
    case "openai.chat":
      return JSON.stringify({
        id: "chatcmpl-1",
        object: "chat.completion",
        created: 1,
        model: "gpt-4.1",
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: null,
              tool_calls: [
                { id: "call_1", type: "function", function: { name: call.name, arguments: args } },
              ],
            },
            finish_reason: "tool_calls",
          },
        ],
      });
    case "openai.chat.stream": {
      const chunk = (delta: unknown, finish: string | null = null) => ({
        id: "chatcmpl-1",
        object: "chat.completion.chunk",
        created: 1,
        model: "gpt-4.1",
        choices: [{ index: 0, delta, finish_reason: finish }],
      });
      return [
        sseEvent(
          chunk({
            role: "assistant",
            content: null,
            tool_calls: [
              { index: 0, id: "call_1", type: "function", function: { name: call.name, arguments: "" } },
            ],
          }),
        ),
        sseEvent(chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] })),
        sseEvent(chunk({}, "tool_calls")),
        sseEvent("[DONE]"),
      ].join("");
    }
    case "openai.responses":
      return JSON.stringify(responsesBody("completed", [responsesItem(call, "completed")]));
    case "openai.responses.stream": {
      let sequence = 0;
      const event = (type: string, fields: Record<string, unknown>) =>
        sseEvent({ type, sequence_number: sequence++, ...fields }, type);
      return [
        event("response.created", { response: responsesBody("in_progress", []) }),
        event("response.output_item.added", { output_index: 0, item: responsesItem(call, "in_progress") }),
        event("response.function_call_arguments.delta", { item_id: "fc_1", output_index: 0, delta: args }),
        event("response.function_call_arguments.done", { item_id: "fc_1", output_index: 0, arguments: args }),
        event("response.output_item.done", { output_index: 0, item: responsesItem(call, "completed") }),
        event("response.completed", {
          response: responsesBody("completed", [responsesItem(call, "completed")]),
        }),
      ].join("");
    }
    case "gemini.generate":
    case "gemini.stream": {
      const body = {
        candidates: [
          {
            content: { role: "model", parts: [{ functionCall: { name: call.name, args: call.arguments } }] },
            finishReason: "STOP",
            index: 0,
          },
        ],
        modelVersion: "gemini-2.5-flash",
      };
      return client === "gemini.generate" ? JSON.stringify(body) : sseEvent(body);
    }
  }
}

/** The usual content type of `canonicalAnswer(client, …)`. */
export function canonicalContentType(client: SdkClient): string {
  return isStreaming(client) ? "text/event-stream" : "application/json";
}
