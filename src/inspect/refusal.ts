import { RE2JS } from "re2js";

/**
 * Commands a definition names as refused ("commands on the blocklist are rejected, including
 * `rm -rf /`", "never runs install scripts from URLs (`curl … | sh`)") describe a guard, not an
 * instruction. Only these rules — a command quoted in prose — are judged in that light; a
 * concealment, a destination or a secret is weighed whatever frames it.
 */
export const REFUSABLE_RULES: ReadonlySet<string> = new Set([
  "shell.destructive-command",
  "shell.chained-command",
  "shell.pipe-to-interpreter",
  "shell.reverse-shell",
  "shell.persistence",
  "exfil.http-upload-command",
  "intent.weakens-security",
  "intent.run-command",
  "intent.download-and-run",
]);

/** Words that frame what follows as refused, blocked or never done. */
const REFUSAL = RE2JS.compile(
  "\\b(?:never|avoid|avoids|do not|don't|does not|doesn't|will not|won't|cannot|can't|must not|refuses?|refused|rejects?|rejected|blocks|blocked|blocklist(?:ed)?|denylist(?:ed)?|deny-list|disallowed|not allowed|not permitted|forbidden|prohibited|denied)\\b",
);

/**
 * What turns a refusal back into an instruction between it and the command: a double negation
 * ("never skip", "do not forget"), an exception ("unless", "except", "without"), a state claimed
 * open ("no longer", "unblocked", "allowed"), or a new order ("…, run", "then", "instead").
 */
const REOPENED = RE2JS.compile(
  "\\b(?:unless|except|without|forget|skip|skipping|omit|fail|neglect|hesitate|no longer|nothing|none|unblocked|allowed|permitted|fine|okay|ok|safe|then|first|instead|otherwise|but|however|to fix|to unblock|to continue|to proceed)\\b|[,;]\\s*(?:and\\s+)?(?:please\\s+)?(?:run|execute|call|type|paste|enter|invoke|install|use)\\b|\\band\\s+(?:run|execute|type|paste|enter|invoke)\\b",
);

/** A refusal itself negated, just before it. */
const DENIED = RE2JS.compile(
  "\\b(?:nothing|none|no|not|never|isn't|aren't|wasn't|weren't|without|hardly|rarely)\\b",
);
const DENIAL_REACH = 30;

/** How far before a command its refusal may stand. */
const LOOKBACK = 200;

/** A sentence end: not the dots of an elided argument (`dd if=... of=/dev/...`). */
const SENTENCE_END = RE2JS.compile("[^.][.!?]\\s");

/**
 * Whether the command matched at `start` of `lower` (lower-cased text) is named as refused: a
 * refusal earlier in its sentence, and nothing after the last refusal that reopens it.
 */
export function namedAsRefused(lower: string, start: number): boolean {
  let before = lower.slice(Math.max(0, start - LOOKBACK), start);
  const ends = SENTENCE_END.matcher(before);
  let sentence = 0;
  while (ends.find()) sentence = ends.end();
  before = before.slice(sentence);
  const refusals = REFUSAL.matcher(before);
  let at = -1;
  let after = -1;
  while (refusals.find()) {
    at = refusals.start();
    after = refusals.end();
  }
  if (after < 0) return false;
  // "never blocked", "nothing is rejected": a refusal denied is an allowance.
  if (DENIED.matcher(before.slice(Math.max(0, at - DENIAL_REACH), at)).find()) return false;
  return !REOPENED.matcher(before.slice(after)).find();
}
