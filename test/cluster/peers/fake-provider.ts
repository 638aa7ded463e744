/**
 * A fake Anthropic Messages API over TLS (the "provider's cloud" the scenarios may not reach): for
 * every request it answers with one tool_use block, naming the tool the last user message asks for
 * ("call TOOL"). Certificate and key come from /tls (a Secret the test makes for api.anthropic.com).
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:https";

const port = Number(process.env.PORT ?? 8443);
let served = 0;

const server = createServer(
  { cert: readFileSync("/tls/tls.crt"), key: readFileSync("/tls/tls.key") },
  (request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.url === "/served") {
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ served }));
        return;
      }
      served++;
      let tool = "read_file";
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
          messages?: { content?: unknown }[];
        };
        const last = JSON.stringify(body.messages?.at(-1)?.content ?? "");
        tool = /call ([\w-]+)/.exec(last)?.[1] ?? tool;
      } catch {}
      response.writeHead(200, { "content-type": "application/json", "request-id": `req_${served}` });
      response.end(
        JSON.stringify({
          id: `msg_${served}`,
          type: "message",
          role: "assistant",
          model: "claude-test",
          content: [{ type: "tool_use", id: `toolu_${served}`, name: tool, input: { path: "/etc/motd" } }],
          stop_reason: "tool_use",
          stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 5 },
        }),
      );
    });
  },
);
server.listen(port, () => process.stderr.write(`fake provider on ${port}\n`));
