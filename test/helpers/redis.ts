import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Starts real redis-server processes on free loopback ports for tests. Without redis-server the
 * tests that need it skip with a message, except under CI=true where they fail (see HELPERS.md).
 */

function findBinary(name: string): string | undefined {
  for (const candidate of [name, `/usr/bin/${name}`, `/usr/sbin/${name}`, `/usr/local/bin/${name}`]) {
    try {
      execFileSync(candidate, ["--version"], { stdio: "ignore" });
      return candidate;
    } catch {}
  }
  return undefined;
}

const redisServerBinary = findBinary("redis-server");

/**
 * true when the tests needing redis-server must be skipped. Throws under CI=true when it is missing,
 * so that the test file fails instead of passing vacuously.
 */
export function skipWithoutRedis(): boolean {
  if (redisServerBinary) return false;
  const message = "redis-server is not installed (scripts/install-prereqs.sh installs it)";
  if (process.env.CI === "true") throw new Error(message);
  console.warn(`skipping: ${message}`);
  return true;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

export interface RedisServerOptions {
  /** Extra redis.conf lines, e.g. "cluster-enabled yes". */
  config?: string[];
  /** Run as `redis-server --sentinel`. */
  sentinel?: boolean;
}

/** One redis-server on 127.0.0.1; `stop` and `start` keep the port so clients can reconnect. */
export class RedisServer {
  readonly port: number;
  readonly #dir: string;
  readonly #options: RedisServerOptions;
  #process: ChildProcess | undefined;

  private constructor(port: number, options: RedisServerOptions) {
    this.port = port;
    this.#options = options;
    this.#dir = mkdtempSync(join(tmpdir(), "toolwall-redis-"));
  }

  static async start(options: RedisServerOptions = {}): Promise<RedisServer> {
    if (!redisServerBinary) throw new Error("redis-server is not installed");
    const server = new RedisServer(await freePort(), options);
    await server.start();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.#process !== undefined;
  }

  async start(): Promise<void> {
    if (this.#process) return;
    const configFile = join(this.#dir, "redis.conf");
    writeFileSync(
      configFile,
      [
        `port ${this.port}`,
        "bind 127.0.0.1",
        `dir ${this.#dir}`,
        'save ""',
        "appendonly no",
        "protected-mode no",
        ...(this.#options.config ?? []),
        "",
      ].join("\n"),
    );
    const args = this.#options.sentinel ? [configFile, "--sentinel"] : [configFile];
    const child = spawn(redisServerBinary!, args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    this.#process = child;
    child.once("exit", () => {
      if (this.#process === child) this.#process = undefined;
    });
    const deadline = Date.now() + 10_000;
    while (!(await this.#answersPing())) {
      if (!this.#process) throw new Error(`redis-server exited at start: ${stderr}`);
      if (Date.now() > deadline)
        throw new Error(`redis-server did not answer on port ${this.port}: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Sends a raw command and returns the first reply line. */
  async command(...words: string[]): Promise<string> {
    const payload = `*${words.length}\r\n${words.map((w) => `$${Buffer.byteLength(w)}\r\n${w}\r\n`).join("")}`;
    return new Promise((resolve, reject) => {
      const socket = createConnection({ host: "127.0.0.1", port: this.port });
      let reply = "";
      socket.setTimeout(2000, () => socket.destroy(new Error("redis command timed out")));
      socket.on("connect", () => socket.write(payload));
      socket.on("data", (chunk) => {
        reply += chunk.toString();
        if (reply.includes("\r\n")) {
          socket.end();
          resolve(reply.slice(0, reply.indexOf("\r\n")));
        }
      });
      socket.on("error", reject);
    });
  }

  /** Sends a command whose answer is a bulk string (CLUSTER INFO, INFO) and returns that string. */
  async bulk(...words: string[]): Promise<string> {
    const payload = `*${words.length}\r\n${words.map((w) => `$${Buffer.byteLength(w)}\r\n${w}\r\n`).join("")}`;
    return new Promise((resolve, reject) => {
      const socket = createConnection({ host: "127.0.0.1", port: this.port });
      let reply = Buffer.alloc(0);
      socket.setTimeout(2000, () => socket.destroy(new Error("redis command timed out")));
      socket.on("connect", () => socket.write(payload));
      socket.on("data", (chunk: Buffer) => {
        reply = Buffer.concat([reply, chunk]);
        const text = reply.toString();
        const header = /^\$(-?\d+)\r\n/.exec(text);
        if (!header) {
          if (/^[-+]/.test(text) && text.includes("\r\n")) {
            socket.end();
            resolve(text.slice(0, text.indexOf("\r\n")));
          }
          return;
        }
        const length = Number(header[1]);
        const body = reply.subarray(header[0].length);
        if (length < 0 || body.length >= length) {
          socket.end();
          resolve(length < 0 ? "" : body.subarray(0, length).toString());
        }
      });
      socket.on("error", reject);
    });
  }

  async #answersPing(): Promise<boolean> {
    try {
      return (await this.command("PING")) === "+PONG";
    } catch {
      return false;
    }
  }

  /** Stops the server (SIGKILL: its data is gone, like a crash) and waits for the exit. */
  async stop(): Promise<void> {
    const child = this.#process;
    if (!child) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  }

  /** Freezes the server (SIGSTOP) so that connections stay open but nothing answers: a slow Redis. */
  pause(): void {
    this.#process?.kill("SIGSTOP");
  }

  resume(): void {
    this.#process?.kill("SIGCONT");
  }

  async dispose(): Promise<void> {
    this.resume();
    await this.stop();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
