import { describe, expect, it } from "vitest";
import { verifyBundle } from "../../src/bundle/bundle.ts";
import { bundleAccessDenied, identityFromReview } from "../../src/controller/auth.ts";
import {
  ControllerModel,
  desiredStatus,
  type PolicyObject,
  statusDiffers,
} from "../../src/controller/model.ts";

const object = (name: string, spec: unknown, generation = 2): PolicyObject => ({
  apiVersion: "toolwall.io/v1alpha1",
  kind: "MCPPolicy",
  metadata: { namespace: "agents", name, generation },
  spec,
});

const valid = object("valid", { podSelector: { matchLabels: { app: "research" } } });
const badRegex = object("bad-regex", {
  toolPolicy: {
    rules: [
      { action: "Deny", tools: ["Bash"], when: { any: [{ path: "command", op: "Matches", value: "(rm" }] } },
    ],
  },
});
const pods = [
  { metadata: { namespace: "agents", name: "a", uid: "1", labels: { app: "research" } } },
  { metadata: { namespace: "agents", name: "b", uid: "2", labels: { app: "writer" } } },
  { metadata: { namespace: "other", name: "c", uid: "3", labels: { app: "research" } } },
];

describe("controller model", () => {
  const model = new ControllerModel([valid, badRegex], pods);
  const now = "2026-01-01T00:00:00Z";

  it("a valid policy is Compiled and Ready with matchedPods and bundleHash at its generation", () => {
    const status = desiredStatus(model.policies[0]!, model, now);
    expect(status).toMatchObject({
      observedGeneration: 2,
      matchedPods: 1,
      bundleHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(status.conditions?.map((c) => [c.type, c.status, c.reason, c.observedGeneration])).toEqual([
      ["Compiled", "True", "Compiled", 2],
      ["Ready", "True", "Distributed", 2],
    ]);
  });

  it("a broken policy is not Compiled, its message names the bad field, and it is in no bundle", () => {
    const status = desiredStatus(model.policies[1]!, model, now);
    const compiled = status.conditions?.find((c) => c.type === "Compiled");
    expect(compiled).toMatchObject({ status: "False", reason: "InvalidSpec" });
    expect(compiled?.message).toMatch(/^spec\.toolPolicy\.rules\[0\]\.when\.any\[0\]\.value: invalid RE2/);
    expect(status.bundleHash).toBeUndefined();
    expect(
      model
        .bundleFor({ namespace: "agents", name: "a", labels: { app: "research" } })
        .policies.map((p) => p.name),
    ).toEqual(["valid"]);
  });

  it("the pre-encoded bundle JSON is the bundle, and verifies", () => {
    const pod = { namespace: "agents", name: "a", labels: { app: "research" } };
    const now = new Date("2026-01-01T00:00:00Z");
    const { hash, json } = model.bundleJsonFor(pod, now);
    expect(JSON.parse(json)).toEqual(model.bundleFor(pod, now));
    expect(verifyBundle(JSON.parse(json), { namespace: "agents", pod: "a" }).bundle.hash).toBe(hash);
  });

  it("keeps lastTransitionTime while a condition's status holds, so an unchanged status is not rewritten", () => {
    const first = desiredStatus(model.policies[0]!, model, now);
    const stored = object("valid", valid.spec);
    stored.status = first;
    const again = new ControllerModel([stored], pods);
    const second = desiredStatus(again.policies[0]!, again, "2026-01-02T00:00:00Z");
    expect(statusDiffers(first, second)).toBe(false);
  });

  it("reads TokenReview answers and allows a token only its own pod's bundle", () => {
    const status = {
      authenticated: true,
      audiences: ["toolwall"],
      user: {
        username: "system:serviceaccount:agents:agent",
        extra: {
          "authentication.kubernetes.io/pod-name": ["a"],
          "authentication.kubernetes.io/pod-uid": ["1"],
        },
      },
    };
    const result = identityFromReview(status, "toolwall");
    expect(result).toEqual({
      ok: true,
      identity: { namespace: "agents", serviceAccount: "agent", podName: "a", podUid: "1" },
    });
    expect(identityFromReview({ ...status, audiences: ["api"] }, "toolwall")).toMatchObject({ ok: false });
    expect(
      identityFromReview({ ...status, user: { username: "system:serviceaccount:agents:agent" } }, "toolwall"),
    ).toMatchObject({
      ok: false,
      message: expect.stringMatching(/not bound to a pod/),
    });
    if (!result.ok) throw new Error("unreachable");
    const pod = { namespace: "agents", name: "a", uid: "1", labels: {}, serviceAccount: "agent" };
    expect(bundleAccessDenied(result.identity, "agents", "a", pod)).toBeUndefined();
    expect(bundleAccessDenied(result.identity, "agents", "b", pod)).toMatch(/may not read/);
    expect(bundleAccessDenied(result.identity, "agents", "a", { ...pod, uid: "9" })).toMatch(/uid differs/);
    expect(bundleAccessDenied(result.identity, "agents", "a", { ...pod, serviceAccount: "x" })).toMatch(
      /service account/,
    );
  });
});
