import { ErrorCode, type JsonSchema, ToolgateError } from '@toolgate/sdk';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { type ExecutorHarness, plan, principal, ROLES, startExecutor, step, writePolicy } from './executor-fixtures';

const RISKS = ['read', 'write', 'destructive'] as const;
type Risk = (typeof RISKS)[number];

/** The tools under test with their declared risk, whether a person must approve them, and valid arguments. */
const TOOLS: Record<string, { risk: Risk; approval: boolean; args: Record<string, unknown> }> = {
  'probe/echo': { risk: 'read', approval: false, args: { label: 'x' } },
  'probe/write-op': { risk: 'write', approval: false, args: { label: 'x' } },
  'probe/wipe': { risk: 'destructive', approval: true, args: { target: 'x' } },
  'probe/send': { risk: 'write', approval: true, args: { label: 'x' } },
};

/** Which of the tools each glob matches, written out by hand: the oracle does not reuse the policy code. */
const GLOBS: Record<string, string[]> = {
  'probe/*': Object.keys(TOOLS),
  '**': Object.keys(TOOLS),
  'probe/echo': ['probe/echo'],
  'probe/wipe': ['probe/wipe'],
  '{probe,other}/*-op': ['probe/write-op'],
  'probe/w*': ['probe/write-op', 'probe/wipe'],
  'other/*': [],
};

const grantArb = fc.record({
  tools: fc.constantFrom(...Object.keys(GLOBS)),
  actions: fc.subarray(['discover', 'execute'] as const, { minLength: 1 }),
  maxRisk: fc.constantFrom(...RISKS),
});

const allowedBy = (grants: { tools: string; actions: readonly string[]; maxRisk: Risk }[], action: string, tool: string) =>
  grants.some((g) => g.actions.includes(action) && GLOBS[g.tools].includes(tool) && RISKS.indexOf(TOOLS[tool].risk) <= RISKS.indexOf(g.maxRisk));

const errorOf = async (promise: Promise<unknown>): Promise<ToolgateError | null> =>
  promise.then(
    () => null,
    (error: unknown) => {
      if (!ToolgateError.is(error)) throw error;
      return error;
    },
  );

describe('executor properties', () => {
  let h: ExecutorHarness;
  beforeAll(async () => {
    h = await startExecutor();
  });
  afterAll(() => h?.close());

  it('permission matrix: a step runs only when the policy allows; a tool the caller may not see answers exactly like a missing one', async () => {
    const caller = principal('pat', ['fuzz']);
    await fc.assert(
      fc.asyncProperty(fc.array(grantArb, { maxLength: 3 }), fc.constantFrom(...Object.keys(TOOLS)), async (grants, tool) => {
        writePolicy(h.policyFile, { fuzz: { grants }, operator: ROLES.operator });
        await h.access.reload();
        h.resetProbe();
        const visible = allowedBy(grants, 'discover', tool);
        const executable = allowedBy(grants, 'execute', tool);
        const attempt = h.runner.execute({ ...plan(step('s', tool, TOOLS[tool].args)), id: 'matrix' }, caller);
        if (!visible) {
          const error = await errorOf(attempt);
          const missing = await errorOf(h.runner.execute({ ...plan(step('s', 'probe/ghost', TOOLS[tool].args)), id: 'matrix' }, caller));
          expect(error?.code).toBe(ErrorCode.TOOL_NOT_FOUND);
          expect({ message: error?.message, details: error?.details.map((d) => ({ ...d, message: d.message.replace(tool, '<tool>') })) }).toEqual({
            message: missing?.message,
            details: missing?.details.map((d) => ({ ...d, message: d.message.replace('probe/ghost', '<tool>') })),
          });
        } else if (!executable) {
          expect((await errorOf(attempt))?.code).toBe(ErrorCode.FORBIDDEN);
        } else {
          const run = await attempt;
          if (TOOLS[tool].approval) {
            expect(run.status).toBe('PENDING_APPROVAL');
            await h.runner.cancel(run.id, caller);
          } else {
            expect(run.status).toBe('SUCCEEDED');
          }
        }
        const ran = h.probe.calls.length;
        expect(ran).toBe(visible && executable && !TOOLS[tool].approval ? 1 : 0);
      }),
      { numRuns: 80 },
    );
  });

  describe('fuzzed arguments', () => {
    let schemaValid: (value: unknown) => boolean;
    const worker = principal('wendy', ['worker']);
    beforeAll(async () => {
      writePolicy(h.policyFile, ROLES);
      await h.access.reload();
      // An independent validator (own Ajv instance) is the oracle for what the tool may receive.
      const schema = h.catalog.resolve('probe/strict', worker).version.descriptor.inputSchema as JsonSchema;
      const oracle = addFormats(new Ajv2020({ strict: false, allowUnionTypes: true })).compile(schema);
      schemaValid = (value) => oracle(value);
    });

    const keys = ['name', 'amount', 'mode', 'tags', 'when', 'nested', 'extra', '__proto__', 'constructor', 'prototype'];
    const valueFor = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.string({ maxLength: 25 }),
      fc.double({ noNaN: true, min: -10, max: 2000 }),
      fc.constantFrom('fast', 'slow', '2024-02-29', '2023-02-29', 'not-a-date'),
      fc.record({ flag: fc.oneof(fc.boolean(), fc.jsonValue({ maxDepth: 1 })) }, { requiredKeys: [] }),
      fc.array(fc.string({ maxLength: 5 }), { maxLength: 5 }),
    );
    const noise = fc.dictionary(fc.constantFrom(...keys), valueFor, { maxKeys: 7 });
    // Mostly-valid arguments with a few fields overwritten by noise, so both sides of the schema are reached.
    const nearlyValid = fc
      .tuple(
        fc.record(
          {
            name: fc.string({ minLength: 1, maxLength: 20 }),
            amount: fc.double({ noNaN: true, min: 0, max: 1000 }),
            mode: fc.constantFrom('fast', 'slow'),
            tags: fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
            when: fc.constantFrom('2024-02-29', '1999-12-31'),
            nested: fc.record({ flag: fc.boolean() }),
          },
          { requiredKeys: ['name', 'amount'] },
        ),
        fc.dictionary(fc.constantFrom(...keys), valueFor, { maxKeys: 2 }),
      )
      .map(([valid, overwrite]) => ({ ...valid, ...overwrite }));
    // Round-tripped through JSON text so "__proto__" is an own key, as it would arrive over the wire.
    const argumentsArb = fc.oneof(noise, nearlyValid).map((args) => JSON.parse(JSON.stringify(args)) as Record<string, unknown>);
    const pollutes = (value: unknown): boolean =>
      value !== null && typeof value === 'object' && Object.keys(value).some((k) => ['__proto__', 'constructor', 'prototype'].includes(k) || pollutes((value as Record<string, unknown>)[k]));

    it('never reach a tool invalid, always reach it valid, and prototype keys are refused', async () => {
      let accepted = 0;
      await fc.assert(
        fc.asyncProperty(argumentsArb, async (args) => {
          h.resetProbe();
          const error = await errorOf(h.runner.execute(plan(step('s', 'probe/strict', args)), worker));
          for (const received of h.probe.received) {
            expect(schemaValid(received)).toBe(true);
            expect(pollutes(received)).toBe(false);
          }
          if (schemaValid(args) && !pollutes(args)) {
            accepted++;
            expect(error).toBeNull();
            expect(h.probe.received).toEqual([args]);
          } else {
            expect([ErrorCode.INVALID_ARGUMENTS, ErrorCode.INVALID_PLAN]).toContain(error?.code);
            expect(h.probe.received).toEqual([]);
          }
        }),
        { numRuns: 300 },
      );
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      // The generator must reach the tool sometimes, or the property says nothing about valid input.
      expect(accepted).toBeGreaterThan(0);
    });

    it('bound values from an earlier output are checked after resolution', async () => {
      await fc.assert(
        fc.asyncProperty(fc.string({ maxLength: 25 }), async (text) => {
          h.resetProbe();
          const run = await h.runner.execute(plan(step('e', 'probe/echo', { label: 'e', text }), step('s', 'probe/strict', { name: { $ref: 'steps.e.output/text' }, amount: 5 }, ['e'])), worker);
          const strict = run.steps.find((s) => s.id === 's');
          if (schemaValid({ name: text, amount: 5 })) {
            expect(strict?.status).toBe('SUCCEEDED');
            expect(h.probe.received).toEqual([{ name: text, amount: 5 }]);
          } else {
            expect(strict).toMatchObject({ status: 'FAILED', error: { code: ErrorCode.INVALID_ARGUMENTS, path: '/arguments/name' } });
            expect(h.probe.received).toEqual([]);
          }
        }),
        { numRuns: 100 },
      );
    });
  });
});
