import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openPolicySource } from "../../src/cli/policy-source.ts";
import { type Sidecar, type SidecarOptions, startSidecar } from "../../src/runtime/sidecar.ts";

/**
 * `toolwall sidecar` in-process for loopback tests: the policy YAML written to DIR/policy.yaml and
 * read as a policy file, the CA in DIR/ca, no admin server, no transparent listener unless `listen`
 * says, diagnostics dropped. Everything else as the test gives it.
 */
export function startFileSidecar(
  dir: string,
  policyYaml: string,
  options: Pick<SidecarOptions, "namespace" | "pod"> & Partial<SidecarOptions>,
): Promise<Sidecar> {
  const file = join(dir, "policy.yaml");
  writeFileSync(file, policyYaml);
  return startSidecar({
    policySource: (audit) =>
      openPolicySource({ "policy-file": [file] }, { audit, namespace: options.namespace, pod: options.pod }),
    listen: undefined,
    admin: undefined,
    caDir: join(dir, "ca"),
    extraCaFiles: [],
    resolve: [],
    log: () => {},
    ...options,
  });
}
