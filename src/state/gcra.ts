/**
 * Generic cell rate algorithm: one "theoretical arrival time" per key. `perMinute` sets the sustained
 * rate, `burst` how many calls may arrive at once. The Redis Lua script implements the same steps.
 */
export interface GcraStep {
  allowed: boolean;
  /** The TAT to store when the call is allowed. */
  tat: number;
  /** When not allowed: how long until one call would conform. */
  retryAfterMs: number;
}

export function gcraStep(
  storedTat: number | undefined,
  now: number,
  perMinute: number,
  burst: number,
): GcraStep {
  const interval = 60_000 / perMinute;
  const tat = Math.max(storedTat ?? now, now) + interval;
  const allowAt = tat - interval * burst;
  if (allowAt > now) return { allowed: false, tat: storedTat ?? now, retryAfterMs: Math.ceil(allowAt - now) };
  return { allowed: true, tat, retryAfterMs: 0 };
}
