import type { Command } from "./args.ts";
import { parseJsonFlag, parseKeyValues, requireString, stringList, UsageError } from "./args.ts";

const lint: Command = {
  path: ["policy", "lint"],
  summary: "validate MCPPolicy files against the CRD schema",
  usage: `Usage: toolwall policy lint [-f] FILE…

Validates every MCPPolicy document in the files against the CRD's schema and rules (the same checks
the API server makes, plus RE2 regular expressions and argument paths).
Exit status: 0 valid, 2 invalid (every problem listed with file, document and path).`,
  options: { file: { type: "string", short: "f", multiple: true } },
  async run(values, positionals) {
    const files = [...stringList(values, "file"), ...positionals];
    if (files.length === 0) throw new UsageError("at least one -f FILE is required");
    const { loadPolicyFiles, PolicyLoadError, formatProblem } = await import("../policy/load.ts");
    try {
      const policies = loadPolicyFiles(files);
      process.stdout.write(
        `${policies.length} polic${policies.length === 1 ? "y" : "ies"} valid in ${files.length} file(s)\n`,
      );
      return 0;
    } catch (error) {
      if (!(error instanceof PolicyLoadError)) throw error;
      for (const problem of error.problems) process.stdout.write(`${formatProblem(problem)}\n`);
      process.stdout.write(`${error.problems.length} problem(s)\n`);
      return 2;
    }
  },
};

const test: Command = {
  path: ["policy", "test"],
  summary: "decide one tool call against policy files, offline",
  usage: `Usage: toolwall policy test -f FILE… --tool NAME [--server NAME] [--args JSON]
                            [--namespace NS] [--labels k=v,…] [--output json|text]

Evaluates the call against the policies that select a pod with the given namespace and labels
(all namespaces' policies when --namespace is omitted).
Exit status: 0 allowed (or denied by an Audit-mode policy only), 1 denied, 2 error.
--output json prints one object {"action","reason","rule","mode"}.`,
  options: {
    file: { type: "string", short: "f", multiple: true },
    tool: { type: "string" },
    server: { type: "string" },
    args: { type: "string" },
    namespace: { type: "string", short: "n" },
    labels: { type: "string", short: "l" },
    output: { type: "string", short: "o", default: "text" },
  },
  async run(values, positionals) {
    const files = [...stringList(values, "file"), ...positionals];
    if (files.length === 0) throw new UsageError("at least one -f FILE is required");
    const tool = requireString(values, "tool");
    const output = values.output as string;
    if (output !== "json" && output !== "text")
      throw new UsageError(`--output must be json or text, got '${output}'`);
    const args = parseJsonFlag("args", values.args as string | undefined);
    if (args !== undefined && (args === null || typeof args !== "object" || Array.isArray(args))) {
      throw new UsageError("--args must be a JSON object");
    }
    const labels = parseKeyValues("labels", values.labels as string | undefined);
    const { loadPolicyFiles, PolicyLoadError, formatProblem } = await import("../policy/load.ts");
    const { PolicySet } = await import("../policy/evaluate.ts");
    const { isBlocked } = await import("../policy/types.ts");
    let docs: Awaited<ReturnType<typeof loadPolicyFiles>>;
    try {
      docs = loadPolicyFiles(files);
    } catch (error) {
      if (!(error instanceof PolicyLoadError)) throw error;
      for (const problem of error.problems) process.stderr.write(`${formatProblem(problem)}\n`);
      return 2;
    }
    const namespace = values.namespace as string | undefined;
    const all = PolicySet.fromDocuments(docs);
    const set = namespace === undefined ? all : all.forPod(namespace, labels);
    const server = values.server as string | undefined;
    const decision = set.evaluate({
      tool,
      ...(server ? { server } : {}),
      ...(args ? { arguments: args } : {}),
    });
    const { action, reason, rule, mode } = decision;
    if (output === "json") process.stdout.write(`${JSON.stringify({ action, reason, rule, mode })}\n`);
    else
      process.stdout.write(
        `${action.toUpperCase()}${mode === "Audit" ? " (audit only)" : ""}: ${reason}\n  rule: ${rule || "(none)"}\n`,
      );
    return isBlocked(decision) ? 1 : 0;
  },
};

export const policyCommands: Command[] = [lint, test];
