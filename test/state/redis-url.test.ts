import { describe, expect, it } from "vitest";
import { parseRedisUrl } from "../../src/state/redis.ts";

describe("parseRedisUrl: host lists read by the kernel's host[:port] reader", () => {
  it("reads Sentinel and Cluster host lists, default ports and bracketed IPv6", () => {
    expect(parseRedisUrl("redis+sentinel://s1:26380,[fd00::3],s3/mymaster/2")).toEqual({
      kind: "sentinel",
      sentinels: [
        { host: "s1", port: 26380 },
        { host: "fd00::3", port: 26379 },
        { host: "s3", port: 26379 },
      ],
      name: "mymaster",
      db: 2,
    });
    expect(parseRedisUrl("redis+cluster://:pw@n1:7000,n2")).toEqual({
      kind: "cluster",
      nodes: [
        { host: "n1", port: 7000 },
        { host: "n2", port: 6379 },
      ],
      password: "pw",
    });
  });

  it("refuses a host it cannot read", () => {
    expect(() => parseRedisUrl("redis+cluster://n1:99999")).toThrow(/invalid host/);
    expect(() => parseRedisUrl("redis+cluster://[nothost]:7000")).toThrow(/invalid host/);
  });
});
