import { ErrorCode, ToolgateError } from '../errors/toolgate.errors';
import { parsePluginPackageJson } from './plugin.package';

const pkg = (over: Record<string, unknown> = {}) => ({ name: '@acme/weather', version: '1.0.0', toolgate: { sdk: '^0.1.0', tools: './dist/index.js' }, ...over });

const detailsOf = (raw: unknown, host?: string) => {
  try {
    parsePluginPackageJson(raw, host);
  } catch (error) {
    expect(ToolgateError.is(error, ErrorCode.PLUGIN_INVALID)).toBe(true);
    return (error as ToolgateError).details;
  }
  throw new Error('expected PLUGIN_INVALID');
};

describe('parsePluginPackageJson', () => {
  it('accepts a well-formed plugin package.json', () => {
    expect(parsePluginPackageJson(pkg()).name).toBe('@acme/weather');
  });

  it('names a bad semver version', () => {
    expect(detailsOf(pkg({ version: '1.0' }))).toEqual([{ path: '/version', message: expect.stringContaining('semver') }]);
  });

  it('names an sdk range that excludes the host', () => {
    expect(detailsOf(pkg({ toolgate: { sdk: '^2.0.0', tools: 'index.js' } }), '0.1.0')).toEqual([{ path: '/toolgate/sdk', message: expect.stringContaining('does not include') }]);
  });

  it('names an invalid range, a missing entry and a bad package name together', () => {
    const paths = detailsOf({ name: 'Not Valid', version: '1.0.0', toolgate: { sdk: 'whatever!', tools: '' } }).map((d) => d.path);
    expect(paths).toEqual(['/name', '/toolgate/sdk', '/toolgate/tools']);
  });

  it('accepts declared environment variables and addons, and names a bad entry', () => {
    expect(parsePluginPackageJson(pkg({ toolgate: { sdk: '^0.1.0', tools: 'index.js', env: ['TOOLGATE_HTTP_ALLOWLIST'], addons: true } })).toolgate).toMatchObject({
      env: ['TOOLGATE_HTTP_ALLOWLIST'],
      addons: true,
    });
    expect(detailsOf(pkg({ toolgate: { sdk: '^0.1.0', tools: 'index.js', env: ['OK', 'not a name', 7] } })).map((d) => d.path)).toEqual(['/toolgate/env/1', '/toolgate/env/2']);
    expect(detailsOf(pkg({ toolgate: { sdk: '^0.1.0', tools: 'index.js', env: 'PATH', addons: 'yes' } })).map((d) => d.path)).toEqual(['/toolgate/addons', '/toolgate/env']);
  });
});
