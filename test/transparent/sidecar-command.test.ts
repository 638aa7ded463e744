import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const bin = join(import.meta.dirname, "..", "..", "bin", "toolwall.js");

describe("toolwall sidecar command", () => {
  const dir = mkdtempSync(join(tmpdir(), "toolwall-sidecar-cmd-"));
  let child: ChildProcess | undefined;

  afterAll(() => {
    child?.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  it("needs a policy source and says so", async () => {
    const result = await promisify(execFile)(process.execPath, [bin, "sidecar"]).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect((result as { code: number }).code).toBe(2);
    expect((result as { stderr: string }).stderr).toMatch(/--controller-url .* or --policy-file/);
  });

  it("accepts the arguments the webhook injects and stays unready until the controller answers", async () => {
    writeFileSync(join(dir, "token"), "not-a-real-token");
    child = spawn(
      process.execPath,
      [
        bin,
        "sidecar",
        "--listen",
        "127.0.0.1:0",
        "--admin",
        "127.0.0.1:0",
        "--ca-dir",
        join(dir, "ca"),
        "--controller-url",
        "https://127.0.0.1:1",
        "--token-file",
        join(dir, "token"),
        "--bundle-dir",
        join(dir, "state"),
      ],
      {
        env: { ...process.env, TOOLWALL_POD_NAME: "agent-0", TOOLWALL_POD_NAMESPACE: "agents" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const started = await new Promise<string>((resolve, reject) => {
      let text = "";
      child?.stderr?.on("data", (chunk) => {
        text += chunk;
        const line = text.split("\n").find((l) => l.includes("toolwall sidecar: started"));
        if (line) resolve(line);
      });
      child?.on("exit", (code) => reject(new Error(`exited ${code}: ${text}`)));
    });
    const admin = /admin=([\d.]+:\d+)/.exec(started)?.[1];
    const readyz = await fetch(`http://${admin}/readyz`);
    expect(readyz.status).toBe(503);
    expect((await fetch(`http://${admin}/healthz`)).status).toBe(200);
  });
});
