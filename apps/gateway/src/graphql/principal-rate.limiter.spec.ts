import { PrincipalRateLimiter } from './principal-rate.limiter';

describe('PrincipalRateLimiter', () => {
  it('lets a principal spend its burst at once, then refuses with the seconds until enough has refilled', async () => {
    // 600 units a minute (10 a second), 300 at once.
    let now = 0;
    const limiter = new PrincipalRateLimiter({ perMinute: 600, burst: 300 }, () => now);
    expect(await limiter.charge('key:acme\u0000alice', 200)).toBeNull();
    expect(await limiter.charge('key:acme\u0000alice', 100)).toBeNull();
    expect(await limiter.charge('key:acme\u0000alice', 50)).toEqual({ retryAfterSeconds: 5 });
    now = 5_000;
    expect(await limiter.charge('key:acme\u0000alice', 50)).toBeNull();
  });

  it('refills continuously, never past the burst: no window boundary lets a client spend twice its burst', async () => {
    let now = 0;
    const limiter = new PrincipalRateLimiter({ perMinute: 600, burst: 300 }, () => now);
    expect(await limiter.charge('p', 300)).toBeNull();
    now = 59_999;
    expect(await limiter.charge('p', 300)).toBeNull();
    expect(await limiter.charge('p', 1)).not.toBeNull();
    now = 10 * 60_000;
    expect(await limiter.charge('p', 301)).not.toBeNull();
    expect(await limiter.charge('p', 300)).toBeNull();
  });

  it('charges each principal its own bucket', async () => {
    const limiter = new PrincipalRateLimiter({ perMinute: 600, burst: 300 });
    expect(await limiter.charge('key:acme\u0000alice', 300)).toBeNull();
    expect(await limiter.charge('key:acme\u0000alice', 10)).not.toBeNull();
    expect(await limiter.charge('key:globex\u0000gina', 300)).toBeNull();
    expect(await limiter.charge('ip:127.0.0.1', 300)).toBeNull();
  });

  it('refuses one operation that costs more than is left, by cost rather than by count', async () => {
    const limiter = new PrincipalRateLimiter({ perMinute: 6000, burst: 1000 });
    expect(await limiter.charge('p', 900)).toBeNull();
    expect(await limiter.charge('p', 200)).not.toBeNull();
  });

  it('is off with perMinute 0', async () => {
    const limiter = new PrincipalRateLimiter({ perMinute: 0, burst: 1 });
    for (let i = 0; i < 5; i += 1) expect(await limiter.charge('p', 1_000_000)).toBeNull();
  });
});
