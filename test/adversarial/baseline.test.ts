import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AdversarialRig,
  bashCall,
  canonicalAnswer,
  canonicalContentType,
  expectNoDeniedCall,
  runSdk,
  sdkClients,
  startAdversarialRig,
  weatherCall,
} from "./sdk.ts";
import { rawAnswer } from "./upstream.ts";

/** The rig itself: well-formed answers reach every SDK, an allowed call intact, a denied one removed. */
let rig: AdversarialRig;
beforeAll(async () => {
  rig = await startAdversarialRig();
});
afterAll(() => rig.close());

describe.each(sdkClients)("%s, well-formed answer", (client) => {
  it("holds an allowed call as the upstream sent it", async () => {
    rig.upstream.respond = () =>
      rawAnswer({
        headers: [["content-type", canonicalContentType(client)]],
        body: canonicalAnswer(client, weatherCall),
      });
    const outcome = await runSdk(rig, client);
    expect(outcome.error).toBeUndefined();
    expect(outcome.calls).toEqual([{ name: "get_weather", arguments: { city: "Paris" } }]);
  });

  it("holds no denied call", async () => {
    rig.upstream.respond = () =>
      rawAnswer({
        headers: [["content-type", canonicalContentType(client)]],
        body: canonicalAnswer(client, bashCall),
      });
    const outcome = await runSdk(rig, client);
    expectNoDeniedCall(outcome);
  });
});

describe("over HTTPS", () => {
  it.each(sdkClients)(
    "%s: the raw upstream serves TLS and a denied call is still removed",
    async (client) => {
      const tls = await startAdversarialRig({ tls: true });
      try {
        expect(tls.upstream.url).toMatch(/^https:\/\/localhost:/);
        tls.upstream.respond = () =>
          rawAnswer({
            headers: [["content-type", canonicalContentType(client)]],
            body: canonicalAnswer(client, bashCall),
          });
        const outcome = await runSdk(tls, client);
        expect(outcome.error).toBeUndefined();
        expectNoDeniedCall(outcome);
        expect(tls.upstream.requests).toHaveLength(1);
      } finally {
        await tls.close();
      }
    },
  );
});
