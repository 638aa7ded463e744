import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";
import { checkSpecSemantics } from "./compile.ts";
import { policyApiVersion, policyKind } from "./crd.ts";
import type { MCPPolicySpec, PolicyDocument } from "./types.ts";
import { type Problem, SpecValidator } from "./validate.ts";

export interface LoadProblem extends Problem {
  file: string;
  /** 1-based position of the YAML document in its file. */
  document: number;
}

export class PolicyLoadError extends Error {
  readonly problems: LoadProblem[];
  constructor(problems: LoadProblem[]) {
    super(problems.map(formatProblem).join("\n"));
    this.problems = problems;
  }
}

export function formatProblem(p: LoadProblem): string {
  const where = [p.file, p.document > 0 ? `document ${p.document}` : "", p.path].filter(Boolean).join(": ");
  return `${where}: ${p.message}`;
}

let validator: SpecValidator | undefined;

const namePattern = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/** Validates one parsed object as an MCPPolicy (defaults applied in place). */
export function checkPolicyObject(object: unknown): { policy?: PolicyDocument; problems: Problem[] } {
  if (object === null || typeof object !== "object" || Array.isArray(object)) {
    return { problems: [{ path: "", message: "expected an MCPPolicy object" }] };
  }
  const doc = object as Record<string, unknown>;
  const problems: Problem[] = [];
  if (doc.apiVersion !== policyApiVersion) {
    problems.push({ path: "apiVersion", message: `must be ${policyApiVersion}` });
  }
  if (doc.kind !== policyKind) problems.push({ path: "kind", message: `must be ${policyKind}` });
  const metadata = (doc.metadata ?? {}) as Record<string, unknown>;
  const name = metadata.name;
  if (typeof name !== "string" || !namePattern.test(name) || name.length > 253) {
    problems.push({ path: "metadata.name", message: "required: a DNS subdomain name" });
  }
  const namespace = metadata.namespace ?? "default";
  if (typeof namespace !== "string" || !namePattern.test(namespace)) {
    problems.push({ path: "metadata.namespace", message: "must be a DNS label" });
  }
  if (doc.spec === undefined) {
    problems.push({ path: "spec", message: "required field is missing" });
    return { problems };
  }
  validator ??= new SpecValidator();
  problems.push(...validator.validate(doc.spec));
  if (problems.length > 0) return { problems };
  const spec = doc.spec as MCPPolicySpec;
  problems.push(...checkSpecSemantics(spec));
  if (problems.length > 0) return { problems };
  return { policy: { namespace: namespace as string, name: name as string, spec }, problems };
}

/** Parses a multi-document YAML text; every problem names file, document, JSON path and reason. */
export function parsePolicies(
  text: string,
  file: string,
): { policies: PolicyDocument[]; problems: LoadProblem[] } {
  const policies: PolicyDocument[] = [];
  const problems: LoadProblem[] = [];
  const documents = parseAllDocuments(text, { merge: true, uniqueKeys: true });
  const list = Array.isArray(documents) ? documents : [documents];
  list.forEach((document, i) => {
    const at = { file, document: i + 1 };
    if (document.errors.length > 0) {
      for (const error of document.errors)
        problems.push({ ...at, path: "", message: `YAML: ${error.message}` });
      return;
    }
    const object = document.toJS();
    if (object === null || object === undefined) return;
    const checked = checkPolicyObject(object);
    for (const problem of checked.problems) problems.push({ ...at, ...problem });
    if (checked.policy) policies.push(checked.policy);
  });
  return { policies, problems };
}

/** Loads policy files; throws PolicyLoadError listing every problem in every file. */
export function loadPolicyFiles(files: readonly string[]): PolicyDocument[] {
  const policies: PolicyDocument[] = [];
  const problems: LoadProblem[] = [];
  const definedIn = new Map<string, string>();
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      problems.push({
        file,
        document: 0,
        path: "",
        message: `cannot read: ${(error as NodeJS.ErrnoException).code ?? error}`,
      });
      continue;
    }
    const result = parsePolicies(text, file);
    problems.push(...result.problems);
    for (const policy of result.policies) {
      const id = `${policy.namespace}/${policy.name}`;
      const earlier = definedIn.get(id);
      if (earlier) {
        problems.push({
          file,
          document: 0,
          path: "metadata.name",
          message: `policy ${id} is also defined in ${earlier}`,
        });
      }
      definedIn.set(id, file);
      policies.push(policy);
    }
  }
  if (problems.length > 0) throw new PolicyLoadError(problems);
  return policies;
}
