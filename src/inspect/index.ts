// Public API of tool-definition inspection and pinning (used by the MCP and LLM dialects and scan).

export { canonicalJson } from "../kernel/json.ts";
export {
  type CompiledInspection,
  compileInspection,
  findingsAtOrAbove,
  InspectionConfigError,
  inspectTool,
  inspectTools,
  withFindings,
} from "./engine.ts";
export {
  type CounterLike,
  countDefinitionChange,
  countDetections,
  detectionEvent,
  INSPECTION_METRICS,
  type ToolEventContext,
  type ToolSeenStatus,
  toolChangedEvent,
  toolSeenEvent,
  toolSeenStatus,
} from "./events.ts";
export { firstSentence, purposeWords, weighIntent } from "./intent.ts";
export {
  JUDGE_DEFAULTS,
  JudgeConfigError,
  type JudgeOutcome,
  type JudgeSettings,
  type JudgeSpec,
  type JudgeVerdict,
  judgeSettings,
  ModelJudge,
  outcomeFindings,
} from "./judge.ts";
export {
  inspectListing,
  type ListedTool,
  type ListingJudgement,
  ListingNeighbours,
  listingFindings,
  NeighbourIndex,
} from "./listing.ts";
export { confusableKey, nameWords } from "./names.ts";
export { normalize } from "./normalize.ts";
export {
  diffToolDefinitions,
  type FieldChange,
  PINNED_FIELDS,
  pinnedView,
  toolHash,
} from "./pinning.ts";
export { COMPOUND_RULES, PATTERN_RULES } from "./rules.ts";
export { flattenToolEntries, toToolDefinition } from "./tool-shapes.ts";
export {
  type Category,
  type CustomPattern,
  DETECTORS,
  type DetectorName,
  type Finding,
  type InspectionConfig,
  type InspectionResult,
  SEVERITIES,
  type Severity,
  severityRank,
  type ToolDefinition,
} from "./types.ts";
