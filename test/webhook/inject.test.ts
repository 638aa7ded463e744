/**
 * Golden files: test/webhook/golden/<case>.in.yaml is the pod as submitted (for ephemeral-* cases:
 * the pod before, then the pod after `kubectl debug`), <case>.golden.yaml the pod the API server
 * would store after applying our JSON patch, or the refusal. UPDATE_GOLDEN=1 rewrites the goldens.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { V1Pod } from "@kubernetes/client-node";
import jsonPatch from "fast-json-patch";
import { describe, expect, it } from "vitest";
import { parseAllDocuments, stringify } from "yaml";
import { type AdmissionRequest, review } from "../../src/webhook/admission.ts";
import { defaultInjectionConfig, type InjectionConfig, injectPod } from "../../src/webhook/inject.ts";

const goldenDir = join(import.meta.dirname, "golden");
const update = process.env.UPDATE_GOLDEN === "1";
const config: InjectionConfig = {
  ...defaultInjectionConfig,
  image: "registry.example/toolwall:test",
  controllerUrl: "https://toolwall-controller.toolwall-system.svc:8443",
};

const cases = readdirSync(goldenDir)
  .filter((f) => f.endsWith(".in.yaml"))
  .map((f) => f.slice(0, -".in.yaml".length))
  .sort();

function readCase(name: string): V1Pod[] {
  return parseAllDocuments(readFileSync(join(goldenDir, `${name}.in.yaml`), "utf8")).map(
    (doc) => doc.toJSON() as V1Pod,
  );
}

function requestFor(name: string, pods: V1Pod[]): AdmissionRequest {
  const pod = pods.at(-1)!;
  const ephemeral = name.startsWith("ephemeral-");
  return {
    uid: `uid-${name}`,
    kind: { group: "", version: "v1", kind: "Pod" },
    resource: { group: "", version: "v1", resource: "pods" },
    ...(ephemeral ? { subResource: "ephemeralcontainers" } : {}),
    namespace: pod.metadata?.namespace ?? "agents",
    operation: ephemeral ? "UPDATE" : "CREATE",
    object: pod,
    ...(ephemeral ? { oldObject: pods[0] } : {}),
  };
}

/** What the API server ends up with: the pod with our patch applied, or the refusal. */
function admit(request: AdmissionRequest): { stored?: V1Pod; refused?: string; patched: boolean } {
  const response = review(request, config).review.response!;
  expect(response.uid).toBe(request.uid);
  if (!response.allowed) return { refused: response.status!.message, patched: false };
  if (!response.patch) return { stored: request.object as V1Pod, patched: false };
  expect(response.patchType).toBe("JSONPatch");
  const patch = JSON.parse(Buffer.from(response.patch, "base64").toString("utf8"));
  for (const op of patch) expect(op.path).not.toMatch(/^\/metadata\/managedFields/);
  const stored = jsonPatch.applyPatch(structuredClone(request.object), patch, true, false)
    .newDocument as V1Pod;
  return { stored, patched: true };
}

describe("webhook injection golden files", () => {
  it("has cases", () => expect(cases.length).toBeGreaterThan(10));

  for (const name of cases) {
    it(name, () => {
      const pods = readCase(name);
      const result = admit(requestFor(name, pods));
      const actual = stringify(result.refused ? { refused: result.refused } : result.stored, {
        lineWidth: 0,
      });
      const goldenFile = join(goldenDir, `${name}.golden.yaml`);
      if (update) writeFileSync(goldenFile, actual);
      expect(actual).toBe(readFileSync(goldenFile, "utf8"));
      if (name.startsWith("reject-") || name.startsWith("ephemeral-reject-"))
        expect(result.refused).toBeDefined();
    });
  }
});

describe("re-injection", () => {
  for (const name of cases.filter((c) => !c.startsWith("ephemeral-"))) {
    it(`changes nothing on an already injected pod: ${name}`, () => {
      const first = admit(requestFor(name, readCase(name)));
      if (!first.stored) return;
      const again = admit(requestFor(name, [first.stored]));
      expect(again.patched).toBe(false);
      expect(again.stored).toEqual(first.stored);
    });
  }
});

describe("injected pod", () => {
  const pod = injectPod(readCase("several-app-containers")[0]!, config);
  if (pod.outcome !== "injected") throw new Error("expected injection");
  const spec = pod.pod.spec!;
  const [init, sidecar] = spec.initContainers!;

  it("runs toolwall init first with only NET_ADMIN and NET_RAW", () => {
    expect(init!.name).toBe("toolwall-init");
    expect(init!.args).toEqual(["init", "--proxy-uid", "1337", "--proxy-port", "15001"]);
    expect(init!.securityContext!.capabilities).toEqual({ add: ["NET_ADMIN", "NET_RAW"], drop: ["ALL"] });
  });

  it("runs the sidecar natively as uid 1337, read-only, without capabilities, with a startup probe", () => {
    expect(sidecar!.restartPolicy).toBe("Always");
    expect(sidecar!.securityContext).toMatchObject({
      runAsUser: 1337,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
      allowPrivilegeEscalation: false,
    });
    expect(sidecar!.startupProbe).toBeDefined();
    expect(sidecar!.args).toEqual(
      expect.arrayContaining(["sidecar", "--listen", "[::]:15001", "--admin", "[::]:15020"]),
    );
    expect(sidecar!.args!.join(" ")).toContain("--ca-dir /var/run/toolwall/ca");
    expect(sidecar!.args!.join(" ")).toContain(`--controller-url ${config.controllerUrl}`);
  });

  it("mounts the audience-bound token only into the sidecar", () => {
    const token = spec.volumes!.find((v) => v.name === "toolwall-token")!;
    expect(token.projected!.sources![0]!.serviceAccountToken).toMatchObject({ audience: "toolwall" });
    const mountsToken = [...spec.initContainers!, ...spec.containers].filter((c) =>
      (c.volumeMounts ?? []).some((m) => m.name === "toolwall-token"),
    );
    expect(mountsToken.map((c) => c.name)).toEqual(["toolwall-sidecar"]);
  });

  it("keeps a trust variable the user set and adds the others", () => {
    const tools = spec.containers.find((c) => c.name === "python-tools")!;
    const env = Object.fromEntries(tools.env!.map((e) => [e.name, e.value]));
    expect(env.SSL_CERT_FILE).toBe("/etc/custom/bundle.pem");
    expect(env.NODE_EXTRA_CA_CERTS).toBe("/var/run/toolwall/ca/ca.crt");
    expect(env.REQUESTS_CA_BUNDLE).toBe("/var/run/toolwall/ca/ca-bundle.pem");
  });
});

describe("admission requests that are not pod creations", () => {
  it("lets a pod update through untouched", () => {
    const [pod] = readCase("simple-pod");
    const response = review({ ...requestFor("simple-pod", [pod!]), operation: "UPDATE" }, config).review
      .response!;
    expect(response).toEqual({ uid: "uid-simple-pod", allowed: true });
  });

  it("lets other resources through untouched", () => {
    const response = review(
      {
        uid: "u1",
        resource: { group: "apps", version: "v1", resource: "deployments" },
        operation: "CREATE",
        object: {},
      },
      config,
    ).review.response!;
    expect(response).toEqual({ uid: "u1", allowed: true });
  });
});
