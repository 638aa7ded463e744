import { describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main.ts";

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const stdout = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    err += String(chunk);
    return true;
  });
  try {
    return { code: await main(argv), out, err };
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
}

describe("toolwall webhook command line", () => {
  it("documents its flags", async () => {
    const { code, out } = await run(["webhook", "--help"]);
    expect(code).toBe(0);
    for (const flag of ["--listen", "--tls-cert", "--tls-key", "--controller-url", "--image"]) {
      expect(out).toContain(flag);
    }
  });

  it("requires the serving certificate", async () => {
    const { code, err } = await run(["webhook", "--tls-key", "k.pem"]);
    expect(code).toBe(2);
    expect(err).toContain("--tls-cert is required");
  });

  it("refuses a listen address without a port", async () => {
    const { code, err } = await run([
      "webhook",
      "--listen",
      "localhost",
      "--tls-cert",
      "c",
      "--tls-key",
      "k",
    ]);
    expect(code).toBe(2);
    expect(err).toContain("--listen: expected HOST:PORT, [IPv6]:PORT or :PORT, got 'localhost'");
  });

  it("refuses a token lifetime the kubelet would not accept", async () => {
    const { code, err } = await run([
      "webhook",
      "--token-expiration",
      "60",
      "--tls-cert",
      "c",
      "--tls-key",
      "k",
    ]);
    expect(code).toBe(2);
    expect(err).toContain("at least 600");
  });

  it("refuses sidecar resources that are not quantities, naming the field", async () => {
    const { code, err } = await run([
      "webhook",
      "--sidecar-resources",
      '{"limits":{"memory":"lots"}}',
      "--tls-cert",
      "c",
      "--tls-key",
      "k",
    ]);
    expect(code).toBe(2);
    expect(err).toContain("--sidecar-resources.limits.memory: 'lots' is not a Kubernetes quantity");
  });

  it("refuses init resources that are not JSON", async () => {
    const { code, err } = await run([
      "webhook",
      "--init-resources",
      "memory=1Gi",
      "--tls-cert",
      "c",
      "--tls-key",
      "k",
    ]);
    expect(code).toBe(2);
    expect(err).toContain("--init-resources: not JSON");
  });
});
