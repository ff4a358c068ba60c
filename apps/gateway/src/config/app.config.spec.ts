import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { loadConfig, maskConfig } from './app.config';

describe('loadConfig', () => {
  it('gives the embedded profile with no environment', () => {
    const config = loadConfig({}, '/srv/app');
    expect(config.registry.database).toEqual({ type: 'sqlite', path: '/srv/app/.toolgate/toolgate.db' });
    expect(config.registry.pluginDirs).toEqual(['/srv/app/plugins', '/srv/app/node_modules']);
    expect(config.registry.policyFile).toBeNull();
    expect(config.retrieval).toMatchObject({
      driver: 'embedded',
      embedder: 'local',
      funnel: { recallK: 50, weights: { lexical: 1, semantic: 1 }, rrfK: 60, minSimilarity: 0.25 },
      defaultK: 5,
      maxK: 50,
    });
    expect(config.gateway).toMatchObject({ PORT: 4000, GRAPHQL_MAX_DEPTH: 8 });
    expect(config.gateway.HOST).toBeUndefined();
  });

  it('switches the catalog to PostgreSQL with DATABASE_URL', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u:p@db:5432/tg' }).registry.database).toEqual({ type: 'postgres', url: 'postgres://u:p@db:5432/tg' });
  });

  it('names every invalid variable at once', () => {
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', TOOLGATE_INDEX: 'solr', OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' });
      throw new Error('expected INVALID_CONFIG');
    } catch (error) {
      expect(ToolgateError.is(error, ErrorCode.INVALID_CONFIG)).toBe(true);
      expect((error as ToolgateError).details.map((d) => d.path).sort()).toEqual(['DATABASE_URL', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'PORT', 'TOOLGATE_INDEX']);
    }
  });

  it('takes NATS credentials as user and password or as an nkey seed, never both, and masks the seed', () => {
    const seed = `SU${'A'.repeat(56)}`;
    const keyed = loadConfig({ TOOLGATE_NATS_URL: 'nats://nats:4222', TOOLGATE_NATS_NKEY_SEED: seed });
    expect(keyed.registry.remote).toMatchObject({ servers: ['nats://nats:4222'], nkeySeed: seed });
    expect(JSON.stringify(maskConfig(keyed))).not.toContain(seed);
    expect(() => loadConfig({ TOOLGATE_NATS_URL: 'nats://nats:4222', TOOLGATE_NATS_NKEY_SEED: 'SUshort' })).toThrow(
      expect.objectContaining({ details: [expect.objectContaining({ path: 'TOOLGATE_NATS_NKEY_SEED' })] }),
    );
    expect(() => loadConfig({ TOOLGATE_NATS_URL: 'nats://nats:4222', TOOLGATE_NATS_NKEY_SEED: seed, TOOLGATE_NATS_USER: 'gw', TOOLGATE_NATS_PASSWORD: 'pw' })).toThrow(
      expect.objectContaining({ code: ErrorCode.INVALID_CONFIG, details: [expect.objectContaining({ path: 'TOOLGATE_NATS_NKEY_SEED' })] }),
    );
  });

  it('gives transport limits that fit one documented image and let any admissible operation pass the rate budget', () => {
    expect(loadConfig({}).gateway).toMatchObject({
      TOOLGATE_MAX_BODY_BYTES: 16 * 1024 * 1024,
      TOOLGATE_WS_MAX_CONNECTIONS: 256,
      TOOLGATE_WS_MAX_CONNECTIONS_PER_KEY: 8,
      TOOLGATE_RATE_LIMIT_PER_MINUTE: 120_000,
      TOOLGATE_RATE_LIMIT_BURST: 20_000,
    });
    try {
      loadConfig({ TOOLGATE_MAX_BODY_BYTES: '1048576', TOOLGATE_RATE_LIMIT_BURST: '100' });
      throw new Error('expected INVALID_CONFIG');
    } catch (error) {
      expect((error as ToolgateError).details.map((d) => d.path).sort()).toEqual(['TOOLGATE_MAX_BODY_BYTES', 'TOOLGATE_RATE_LIMIT_BURST']);
    }
    // A smaller image limit allows a smaller body; rate limiting off needs no burst.
    expect(() => loadConfig({ TOOLGATE_MAX_BODY_BYTES: '1048576', TOOLGATE_IMAGE_MAX_BYTES: '524288', TOOLGATE_RATE_LIMIT_PER_MINUTE: '0', TOOLGATE_RATE_LIMIT_BURST: '1' })).not.toThrow();
  });

  it('masks credentials when the configuration is printed', () => {
    const printed = JSON.stringify(maskConfig(loadConfig({ DATABASE_URL: 'postgres://toolgate:s3cret@db/tg' })));
    expect(printed).toContain('postgres://toolgate:****@db/tg');
    expect(printed).not.toContain('s3cret');
  });
});
