import type { Command } from "./args.ts";

const demo: Command = {
  path: ["demo"],
  summary: "run a scripted agent through the proxy and show what was allowed and blocked",
  usage: `Usage: toolwall demo

Starts a scripted LLM provider, the proxy with examples/policies/demo.yaml (in-memory state) and a
small agent on the Anthropic SDK that runs a few turns with GitHub MCP tools and a native Bash tool,
then prints the tools offered, the calls made, and what was allowed or blocked and why.
Everything listens on 127.0.0.1; nothing leaves the machine.`,
  options: {},
  async run() {
    const { runDemo } = await import("../demo/run.ts");
    return runDemo((text) => process.stdout.write(`${text}\n`));
  },
};

export const demoCommands: Command[] = [demo];
