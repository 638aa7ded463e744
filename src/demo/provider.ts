import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A scripted Anthropic Messages provider for the demo: the n-th assistant turn of a conversation gets
 * the n-th scripted answer, streamed in the provider's wire shape (tool arguments split mid-token).
 */

export type ScriptedBlock = { text: string } | { tool: string; input: Record<string, unknown> };

export interface ScriptedProvider {
  url: string;
  /** The `tools[].name` lists of the requests as they reached the provider (after the proxy). */
  toolsSeen: string[][];
  close(): Promise<void>;
}

function event(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

export function anthropicStream(turn: number, blocks: readonly ScriptedBlock[]): string {
  let out = event("message_start", {
    message: {
      id: `msg_demo_${turn}`,
      type: "message",
      role: "assistant",
      model: "claude-demo",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 100, output_tokens: 1 },
    },
  });
  let usesTools = false;
  blocks.forEach((block, index) => {
    if ("text" in block) {
      out += event("content_block_start", { index, content_block: { type: "text", text: "" } });
      out += event("content_block_delta", { index, delta: { type: "text_delta", text: block.text } });
    } else {
      usesTools = true;
      out += event("content_block_start", {
        index,
        content_block: { type: "tool_use", id: `toolu_demo_${turn}_${index}`, name: block.tool, input: {} },
      });
      const json = JSON.stringify(block.input);
      const cut = Math.ceil(json.length / 2);
      for (const piece of [json.slice(0, cut), json.slice(cut)]) {
        out += event("content_block_delta", {
          index,
          delta: { type: "input_json_delta", partial_json: piece },
        });
      }
    }
    out += event("content_block_stop", { index });
  });
  out += event("message_delta", {
    delta: { stop_reason: usesTools ? "tool_use" : "end_turn", stop_sequence: null },
    usage: { output_tokens: 50 },
  });
  return out + event("message_stop", {});
}

export async function startScriptedProvider(
  script: readonly (readonly ScriptedBlock[])[],
): Promise<ScriptedProvider> {
  const toolsSeen: string[][] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        messages: { role: string }[];
        tools?: { name: string }[];
      };
      toolsSeen.push((body.tools ?? []).map((tool) => tool.name));
      const turn = body.messages.filter((message) => message.role === "assistant").length;
      const blocks = script[Math.min(turn, script.length - 1)]!;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(anthropicStream(turn, blocks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    toolsSeen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
