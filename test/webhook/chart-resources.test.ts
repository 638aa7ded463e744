/**
 * The injected containers' requests and limits are set once from the measurements in
 * docs/benchmarks.md: the chart passes its values to the webhook (--sidecar-resources,
 * --init-resources), and the webhook's defaults (a webhook started without the chart) must be the
 * same numbers, or a pod's sidecar would get whichever copy was edited last.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { defaultInjectionConfig } from "../../src/webhook/inject.ts";

const values = parse(
  readFileSync(resolve(import.meta.dirname, "../../charts/toolwall/values.yaml"), "utf8"),
) as {
  sidecar: { resources: unknown; initResources: unknown };
};

describe("sidecar and init resources", () => {
  it("are the same in the chart's values and the webhook's defaults", () => {
    expect(values.sidecar.resources).toEqual(defaultInjectionConfig.sidecarResources);
    expect(values.sidecar.initResources).toEqual(defaultInjectionConfig.initResources);
  });
});
