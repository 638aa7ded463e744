import { CALIBRATED_TO_MEDIUM } from "../../src/inspect/calibration.ts";
import type { Finding } from "../../src/inspect/types.ts";

/**
 * Whether a finding is its rule's own High verdict: High or Critical, or a rule calibrated to Medium
 * (src/inspect/calibration.ts) at Medium. A rule's test asks whether the rule fired; what the
 * calibration makes of it is calibration.test.ts's business.
 */
export function firedAtOwnVerdict(finding: Finding): boolean {
  return (
    finding.severity === "High" ||
    finding.severity === "Critical" ||
    (finding.severity === "Medium" && CALIBRATED_TO_MEDIUM.has(finding.rule))
  );
}
