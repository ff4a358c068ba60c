import { executorEnvSchema, executorModuleOptionsFromEnv, runStorageOptionsFromEnv } from './executor.config';

describe('executor storage configuration', () => {
  it('defaults: 256 KiB per step, 4 MiB per run, 30 days of retention, a 10 s heartbeat, maintenance off until a server turns it on', () => {
    expect(runStorageOptionsFromEnv(executorEnvSchema.parse({}))).toEqual({
      maxStepOutputBytes: 262_144,
      maxRunOutputBytes: 4_194_304,
      retentionDays: 30,
      heartbeatMs: 10_000,
      maintenance: false,
    });
    expect(executorModuleOptionsFromEnv(executorEnvSchema.parse({ TOOLGATE_RUN_RETENTION_DAYS: '0' })).storage).toMatchObject({ retentionDays: 0 });
  });

  it.each([
    ['TOOLGATE_RUN_MAX_STEP_OUTPUT_BYTES', 'lots'],
    ['TOOLGATE_RUN_MAX_STEP_OUTPUT_BYTES', '10'],
    ['TOOLGATE_RUN_MAX_OUTPUT_BYTES', '-1'],
    ['TOOLGATE_RUN_RETENTION_DAYS', '1.5'],
    ['TOOLGATE_RUN_HEARTBEAT_MS', '5'],
  ])('names %s=%s', (name, value) => {
    const parsed = executorEnvSchema.safeParse({ [name]: value });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.path.join('.'))).toEqual([name]);
  });
});
