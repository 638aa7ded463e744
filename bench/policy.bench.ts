// Evaluator micro-benchmarks (issue: foundation). Goals: name-only ≤ 1 µs, 3 conditions ≤ 10 µs,
// 1,000-rule policy set ≤ 20 µs per decision.
import { PolicySet } from "../src/policy/evaluate.ts";
import { checkPolicyObject } from "../src/policy/load.ts";
import { goal, measure, table } from "./harness.ts";

function set(spec: Record<string, unknown>): PolicySet {
  const { policy, problems } = checkPolicyObject({
    apiVersion: "toolwall.io/v1alpha1",
    kind: "MCPPolicy",
    metadata: { name: "bench", namespace: "ns" },
    spec,
  });
  if (!policy) throw new Error(JSON.stringify(problems));
  return PolicySet.fromDocuments([policy]);
}

const nameOnly = set({
  toolPolicy: {
    rules: [
      { action: "Deny", servers: ["*"], tools: ["delete_*", "execute_command"] },
      { action: "Deny", tools: ["Bash"] },
    ],
  },
});

const threeConditions = set({
  toolPolicy: {
    rules: [
      {
        action: "Deny",
        servers: ["github"],
        tools: ["create_issue"],
        when: {
          any: [
            { path: "owner", op: "NotEquals", value: "acme" },
            { path: "repo", op: "NotIn", values: ["api", "web", "docs"] },
            { path: "body", op: "Matches", value: "(?i)password|secret" },
          ],
        },
      },
    ],
  },
});

const thousandRules = set({
  serverPolicy: {
    rules: Array.from({ length: 50 }, (_, i) => ({ action: "Deny", servers: [`blocked-${i}-*`] })),
  },
  toolPolicy: {
    rules: Array.from({ length: 1000 }, (_, i) => {
      if (i % 10 === 0) return { action: "Deny", servers: ["*"], tools: [`tool_${i}_*`] };
      if (i % 10 === 1) {
        return {
          action: "Deny",
          tools: [`tool_${i}`],
          when: { all: [{ path: "path", op: "StartsWith", value: "/etc" }] },
        };
      }
      return { action: i % 2 ? "Allow" : "Deny", servers: [`server-${i % 37}`], tools: [`tool_${i}`] };
    }),
  },
});

const rows = [
  {
    m: measure("name-only decision", () => nameOnly.evaluate({ server: "github", tool: "delete_repo" })),
    goalNs: 1000,
  },
  {
    m: measure("decision with 3 conditions", () =>
      threeConditions.evaluate({
        server: "github",
        tool: "create_issue",
        arguments: { owner: "acme", repo: "web", body: "the build fails on main" },
      }),
    ),
    goalNs: 10_000,
  },
  {
    m: measure("policy set of 1,000 rules", () =>
      thousandRules.evaluate({ server: "server-5", tool: "tool_301", arguments: { path: "/home/a" } }),
    ),
    goalNs: 20_000,
  },
  {
    m: measure("policy set of 1,000 rules, wildcard miss", () =>
      thousandRules.evaluate({ server: "server-5", tool: "unlisted_tool" }),
    ),
    goalNs: 20_000,
  },
];

console.log("## Policy evaluator\n");
console.log(
  table(
    ["case", "per decision", "decisions/s", "goal", ""],
    rows.map(({ m, goalNs }) => [
      m.name,
      `${(m.nsPerOp / 1000).toFixed(2)} µs`,
      Math.round(m.opsPerSec).toLocaleString("en"),
      `≤ ${goalNs / 1000} µs`,
      goal(m.nsPerOp <= goalNs),
    ]),
  ),
);
console.log();
