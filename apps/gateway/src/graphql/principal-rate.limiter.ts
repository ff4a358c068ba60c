import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

export interface RateLimitSettings {
  /** Cost units per minute, sustained; 0: no limit. */
  perMinute: number;
  /** Cost units a principal may spend at once. */
  burst: number;
}

/**
 * Per-principal budget in operation cost units, shared by every transport. A bucket of `burst` units
 * that fills up again every `burst / perMinute` minutes (rate-limiter-flexible's fixed window), so the
 * sustained rate is `perMinute` and a quiet client can spend `burst` at once. In memory: one replica's
 * view; the library's PostgreSQL store would share it between replicas.
 */
export class PrincipalRateLimiter {
  private readonly limiter: RateLimiterMemory | null;

  constructor(settings: RateLimitSettings) {
    this.limiter =
      settings.perMinute > 0 ? new RateLimiterMemory({ keyPrefix: 'toolgate', points: settings.burst, duration: Math.max(1, Math.ceil((settings.burst * 60) / settings.perMinute)) }) : null;
  }

  /** Charges `cost` to `principalKey`; null when within budget, else the seconds until the bucket refills. */
  async charge(principalKey: string, cost: number): Promise<{ retryAfterSeconds: number } | null> {
    if (!this.limiter || cost <= 0) return null;
    try {
      await this.limiter.consume(principalKey, cost);
      return null;
    } catch (refusal) {
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      return { retryAfterSeconds: Math.max(1, Math.ceil(refusal.msBeforeNext / 1000)) };
    }
  }
}
