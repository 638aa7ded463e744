import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hostName, parseHttpHead } from "../../src/net/http-head.ts";

const text = (s: string) => Buffer.from(s, "latin1");

describe("HTTP request head parsing", () => {
  it("reads the Host of a request, without its port", () => {
    expect(
      parseHttpHead(text("POST /mcp HTTP/1.1\r\nHost: MCP.Example.com:8080\r\nAccept: */*\r\n\r\n{}")),
    ).toEqual({
      kind: "http",
      host: "mcp.example.com",
      method: "POST",
      target: "/mcp",
    });
    expect(hostName("[fd00::2]:80")).toBe("fd00::2");
  });

  it("waits for the end of the head", () => {
    expect(parseHttpHead(text("GET / HTTP/1.1\r\nHost: a"))).toEqual({ kind: "need-more" });
    expect(parseHttpHead(text("GE"))).toEqual({ kind: "need-more" });
  });

  it("refuses two Host headers (a smuggling trick) and malformed ones", () => {
    expect(parseHttpHead(text("GET / HTTP/1.1\r\nHost: a.example\r\nhost: b.example\r\n\r\n")).kind).toBe(
      "not-http",
    );
    expect(parseHttpHead(text("GET / HTTP/1.1\r\nHost: a b\r\n\r\n")).kind).toBe("not-http");
  });

  it("reports a request without Host as HTTP with no name", () => {
    expect(parseHttpHead(text("GET / HTTP/1.0\r\n\r\n"))).toMatchObject({ kind: "http", host: undefined });
  });

  it("says not-http for binary protocols at once", () => {
    expect(parseHttpHead(Buffer.from([0x16, 3, 1])).kind).toBe("not-http");
    expect(parseHttpHead(text("SSH-2.0-OpenSSH\r\n")).kind).toBe("not-http");
  });

  it("never throws on arbitrary bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(["need-more", "not-http", "http"]).toContain(parseHttpHead(bytes).kind);
      }),
      { numRuns: 2000 },
    );
  });
});
