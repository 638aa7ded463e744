/**
 * The agent: the official Anthropic SDK with its default base URL, nothing Toolwall-specific but the
 * trust environment the webhook injects. Asks the model to call the tool named in argv[2]; prints the
 * message it got back as one JSON line. With `--until-denied` it asks again every 50 ms (for at most
 * 20 s) until the call is replaced, and prints when that first happened (this host's clock, the same as
 * the test's) and how many calls were allowed before.
 */
import Anthropic from "@anthropic-ai/sdk";

const tool = process.argv[2] ?? "read_file";
const client = new Anthropic({ apiKey: "sk-ant-cluster-test", maxRetries: 0, timeout: 15_000 });
const tools = ["read_file", "delete_file"].map((name) => ({
  name,
  description: `${name.replace("_", "s a ")}.`,
  input_schema: { type: "object" as const, properties: { path: { type: "string" } } },
}));
const ask = () =>
  client.messages.create({
    model: "claude-test",
    max_tokens: 256,
    messages: [{ role: "user", content: `Please call ${tool} on /etc/motd.` }],
    tools,
  });

async function untilDenied(): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 20_000;
  let allowedCalls = 0;
  while (Date.now() < deadline) {
    const message = await ask();
    if (!message.content.some((block) => block.type === "tool_use"))
      return { deniedAt: Date.now(), allowedCalls };
    allowedCalls++;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { error: "still allowed after 20 s", allowedCalls };
}

try {
  const result = process.argv.includes("--until-denied") ? await untilDenied() : await ask();
  process.stdout.write(`${JSON.stringify(result)}\n`);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ error: String((error as Error).message) })}\n`);
}
