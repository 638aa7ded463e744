/**
 * Bounded load through the sidecar: `agent-load.ts TOTAL CONCURRENCY` sends TOTAL Messages requests
 * with the official SDK, CONCURRENCY at a time, half asking for an allowed tool and half for a denied
 * one. Prints the counts of outcomes and the elapsed seconds as one JSON line.
 */
import Anthropic from "@anthropic-ai/sdk";

const total = Number(process.argv[2] ?? 200);
const concurrency = Number(process.argv[3] ?? 8);
const client = new Anthropic({ apiKey: "sk-ant-cluster-test", maxRetries: 0, timeout: 30_000 });
const outcomes: Record<string, number> = {};
let next = 0;
const started = Date.now();
async function worker(): Promise<void> {
  while (next < total) {
    const tool = next++ % 2 === 0 ? "read_file" : "delete_file";
    try {
      const message = await client.messages.create({
        model: "claude-test",
        max_tokens: 64,
        messages: [{ role: "user", content: `Please call ${tool}.` }],
        tools: ["read_file", "delete_file"].map((name) => ({
          name,
          input_schema: { type: "object" as const, properties: {} },
        })),
      });
      const key = message.content.some((block) => block.type === "tool_use") ? "tool_use" : "replaced";
      outcomes[key] = (outcomes[key] ?? 0) + 1;
    } catch {
      outcomes.error = (outcomes.error ?? 0) + 1;
    }
  }
}
await Promise.all(Array.from({ length: concurrency }, worker));
process.stdout.write(`${JSON.stringify({ ...outcomes, seconds: (Date.now() - started) / 1000 })}\n`);
