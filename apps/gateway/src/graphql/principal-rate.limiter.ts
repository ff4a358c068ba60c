export interface RateLimitSettings {
  /** Cost units per minute, sustained; 0: no limit. */
  perMinute: number;
  /** Cost units a principal may spend at once. */
  burst: number;
}

/** Principals whose buckets are kept; the one idle longest goes first (a full bucket carries no state worth keeping). */
const MAX_PRINCIPALS = 100_000;

/**
 * Per-principal budget in operation cost units, shared by every transport: a token bucket of `burst`
 * units refilled continuously at `perMinute`. Written here because the usual library
 * (rate-limiter-flexible) offers fixed windows only, which let a client spend twice its burst across a
 * window boundary. In memory: one replica's view.
 */
export class PrincipalRateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly perMs: number;

  constructor(
    private readonly settings: RateLimitSettings,
    private readonly now: () => number = Date.now,
  ) {
    this.perMs = settings.perMinute / 60_000;
  }

  /** Charges `cost` to `principalKey`; null when within budget, else the seconds until enough has refilled. */
  async charge(principalKey: string, cost: number): Promise<{ retryAfterSeconds: number } | null> {
    if (this.settings.perMinute <= 0 || cost <= 0) return null;
    const now = this.now();
    const held = this.buckets.get(principalKey);
    const tokens = held ? Math.min(this.settings.burst, held.tokens + (now - held.at) * this.perMs) : this.settings.burst;
    // Re-inserted so the map's order is least recently used first.
    this.buckets.delete(principalKey);
    if (tokens < cost) {
      this.buckets.set(principalKey, { tokens, at: now });
      return { retryAfterSeconds: Math.max(1, Math.ceil((Math.min(cost, this.settings.burst) - tokens) / this.perMs / 1000)) };
    }
    this.buckets.set(principalKey, { tokens: tokens - cost, at: now });
    if (this.buckets.size > MAX_PRINCIPALS) this.buckets.delete(this.buckets.keys().next().value as string);
    return null;
  }
}
