import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { loadConfig } from './app.config';
import { loadCatalogConfig } from './catalog.config';

describe('loadCatalogConfig: the settings of the commands that only read the catalog', () => {
  it('gives the same gateway and registry settings as loadConfig', () => {
    const env = { DATABASE_URL: 'postgres://u:p@db:5432/tg', TOOLGATE_PLUGIN_DIRS: '/opt/plugins', LOG_LEVEL: 'debug' } as NodeJS.ProcessEnv;
    const full = loadConfig(env, '/srv/app');
    expect(loadCatalogConfig(env, '/srv/app')).toEqual({ gateway: full.gateway, registry: full.registry });
  });

  it('names every invalid gateway or registry variable, and leaves the settings it does not read alone', () => {
    const env = { PORT: 'eighty', DATABASE_URL: 'mysql://x', TOOLGATE_INDEX: 'solr', TOOLGATE_PLANNER: 'psychic' } as NodeJS.ProcessEnv;
    try {
      loadCatalogConfig(env);
      throw new Error('expected INVALID_CONFIG');
    } catch (error) {
      expect(ToolgateError.is(error, ErrorCode.INVALID_CONFIG)).toBe(true);
      expect((error as ToolgateError).details.map((d) => d.path).sort()).toEqual(['DATABASE_URL', 'PORT']);
    }
    // The full configuration still refuses all four.
    expect(() => loadConfig(env)).toThrow(
      expect.objectContaining({ details: expect.arrayContaining([expect.objectContaining({ path: 'TOOLGATE_INDEX' }), expect.objectContaining({ path: 'TOOLGATE_PLANNER' })]) }),
    );
  });
});
