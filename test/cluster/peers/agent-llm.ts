/**
 * The agent: the official Anthropic SDK with its default base URL, nothing Toolwall-specific but the
 * trust environment the webhook injects. Asks the model to call the tool named in argv[2]; prints the
 * message it got back as one JSON line.
 */
import Anthropic from "@anthropic-ai/sdk";

const tool = process.argv[2] ?? "read_file";
const client = new Anthropic({ apiKey: "sk-ant-cluster-test", maxRetries: 0, timeout: 15_000 });
const tools = ["read_file", "delete_file"].map((name) => ({
  name,
  description: `${name.replace("_", "s a ")}.`,
  input_schema: { type: "object" as const, properties: { path: { type: "string" } } },
}));
try {
  const message = await client.messages.create({
    model: "claude-test",
    max_tokens: 256,
    messages: [{ role: "user", content: `Please call ${tool} on /etc/motd.` }],
    tools,
  });
  process.stdout.write(`${JSON.stringify(message)}\n`);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ error: String((error as Error).message) })}\n`);
}
