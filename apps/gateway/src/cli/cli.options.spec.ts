import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode, type ToolgateError } from '@toolgate/sdk';
import { datasetPath } from './cli.options';

describe('datasetPath: --tools, --queries, --dataset from any checkout', () => {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-datasets-'));
  mkdirSync(join(root, 'ultratool'));
  writeFileSync(join(root, 'ultratool', 'data.json'), '[]');
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const refusal = (path: string, env: NodeJS.ProcessEnv) => {
    try {
      datasetPath(path, '--dataset', env);
    } catch (error) {
      return error as ToolgateError;
    }
    throw new Error('expected a refusal');
  };

  it('takes a path that exists as given, and a relative one under $TOOLGATE_DATASETS otherwise', () => {
    expect(datasetPath(join(root, 'ultratool'), '--dataset', {})).toBe(join(root, 'ultratool'));
    expect(datasetPath('ultratool/data.json', '--tools', { TOOLGATE_DATASETS: root })).toBe(join(root, 'ultratool', 'data.json'));
  });

  it('names every place it looked, and TOOLGATE_DATASETS when it is unset', () => {
    const unset = refusal('ultratool', {});
    expect(unset.code).toBe(ErrorCode.INVALID_ARGUMENTS);
    expect(unset.message).toBe(
      `--dataset ultratool does not exist: looked at ${join(process.cwd(), 'ultratool')}; set TOOLGATE_DATASETS to the folder holding the evaluation sets to pass paths relative to it`,
    );
    expect(unset.details).toEqual([{ path: '--dataset', message: 'no such file or folder' }]);
    const set = refusal('seal_tools', { TOOLGATE_DATASETS: root });
    expect(set.message).toBe(`--dataset seal_tools does not exist: looked at ${join(process.cwd(), 'seal_tools')} and ${join(root, 'seal_tools')}`);
  });
});
