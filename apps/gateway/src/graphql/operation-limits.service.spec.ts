import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { GraphQLSchemaBuilderModule, GraphQLSchemaFactory } from '@nestjs/graphql';
import type { AccessPolicyService } from '@toolgate/registry';
import { type GraphQLError, type GraphQLSchema, getOperationAST, Kind, type OperationDefinitionNode, parse } from 'graphql';
import { PrincipalResolver } from '../auth/principal.resolver';
import { type AppConfig, loadConfig } from '../config/app.config';
import { PlanningResolver } from '../planning/planning.resolver';
import { RunsResolver } from '../runs/runs.resolver';
import { ToolHealthResolver } from '../runs/tool-health.resolver';
import { ToolsResolver } from '../tools/tools.resolver';
import { OperationLimits, tooDeepField } from './operation-limits.service';

const check = (source: string, maxDepth: number) => {
  const document = parse(source);
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  return tooDeepField(document, operation as OperationDefinitionNode, maxDepth);
};

describe('tooDeepField', () => {
  it('accepts an operation at the limit', () => {
    expect(check('{ tools { versions { version } } }', 3)).toBeNull();
  });

  it('names the first field past the limit, using aliases', () => {
    expect(check('{ t: tools { versions { version } } }', 2)).toEqual({ path: 't.versions.version', depth: 3 });
  });

  it('follows fragments and inline fragments, and ignores introspection fields', () => {
    const source = `
      query { searchTools(input: {query: "x"}) { ...M } __schema { types { fields { type { name } } } } }
      fragment M on ToolMatch { tool { ... on Tool { versions { version } } } }`;
    expect(check(source, 3)).toEqual({ path: 'searchTools.tool.versions.version', depth: 4 });
    expect(check(source, 4)).toBeNull();
  });

  it('terminates on self-referencing fragments', () => {
    const source = 'query { tools { ...A } } fragment A on Tool { id ...A }';
    expect(check(source, 5)).toBeNull();
  });
});

describe('OperationLimits over the real schema', () => {
  let schema: GraphQLSchema;
  let app: INestApplicationContext;
  const access = {
    localMode: false,
    authenticate: (key: string | null) => ({ 'acme-key': { tenant: 'acme', subject: 'alice', roles: [] }, 'globex-key': { tenant: 'globex', subject: 'gina', roles: [] } })[key ?? ''] ?? fail(),
  };
  const fail = () => {
    throw new Error('unknown API key');
  };
  const limitsWith = (gateway: Partial<AppConfig['gateway']> = {}) => {
    const config = loadConfig({});
    return new OperationLimits({ ...config, gateway: { ...config.gateway, ...gateway } }, access as unknown as AccessPolicyService);
  };
  const admit = (limits: OperationLimits, source: string, { key = 'acme-key', variables = {} as Record<string, unknown>, ip = '10.0.0.1' } = {}) => {
    const document = parse(source);
    const operation = getOperationAST(document) as OperationDefinitionNode;
    return limits.admit({ schema, document, operation, variables, authorization: key ? `Bearer ${key}` : undefined, clientIp: ip });
  };
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: GraphQLError) => error.extensions,
    );

  beforeAll(async () => {
    app = await NestFactory.createApplicationContext(GraphQLSchemaBuilderModule, { logger: false });
    schema = await app.get(GraphQLSchemaFactory).create([ToolsResolver, PlanningResolver, RunsResolver, PrincipalResolver, ToolHealthResolver]);
  });
  afterAll(() => app.close());

  it('lets a normal client query through, priced by what it asks for', async () => {
    const cost = await admit(limitsWith(), '{ searchTools(input: { query: "convert 5 km to miles", k: 10 }) { score tool { id name description } explanation { summary } } }');
    expect(cost).toBe(10 + 10 * (1 + 4 + 2)); // score; tool and 3 fields; explanation and 1
  });

  it('refuses 500 aliased searches in one request with the computed cost', async () => {
    const aliases = Array.from({ length: 500 }, (_, i) => `s${i}: searchTools(input: { query: "q${i}", k: 1 }) { score }`).join(' ');
    expect(await refusal(admit(limitsWith(), `{ ${aliases} }`))).toEqual({ code: 'QUERY_TOO_COMPLEX', complexity: 500 * 11, maxComplexity: 2000 });
  });

  it('prices executePlan by its steps, from variables too', async () => {
    const mutation = 'mutation($plan: PlanInput!) { executePlan(plan: $plan) { id status } }';
    const plan = (n: number) => ({ steps: Array.from({ length: n }, (_, i) => ({ id: `s${i}`, tool: 'calculator/evaluate', arguments: { expression: '1+1' } })) });
    expect(await admit(limitsWith(), mutation, { variables: { plan: plan(3) } })).toBe(3 * 10 + 2);
    expect(await refusal(admit(limitsWith(), mutation, { variables: { plan: plan(1000) } }))).toMatchObject({ code: 'QUERY_TOO_COMPLEX', complexity: 1000 * 10 + 2 });
  });

  it('prices runTask by the steps and re-plans its run may take', async () => {
    const cost = await admit(limitsWith(), 'mutation { runTask(task: { text: "add 2 and 3" }) { id } }');
    expect(cost).toBe(3 * 30 + 3 * 20 * 10 + 1);
  });

  it('refuses a deep operation before pricing it', async () => {
    expect(await refusal(admit(limitsWith({ GRAPHQL_MAX_DEPTH: 2 }), '{ tools { versions { version } } }'))).toMatchObject({ code: 'QUERY_TOO_DEEP', field: 'tools.versions.version' });
  });

  it('charges the cost to the principal: past its budget RATE_LIMITED with retryAfterSeconds, another principal unaffected', async () => {
    const limits = limitsWith({ TOOLGATE_RATE_LIMIT_PER_MINUTE: 600, TOOLGATE_RATE_LIMIT_BURST: 100 });
    const search = '{ searchTools(input: { query: "x", k: 5 }) { score } }'; // 15
    for (let i = 0; i < 6; i += 1) await admit(limits, search);
    expect(await refusal(admit(limits, search))).toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: expect.any(Number), complexity: 15 });
    expect(await admit(limits, search, { key: 'globex-key' })).toBe(15);
    // A key that does not authenticate is charged by address, not as the principal it claims.
    expect(await admit(limits, search, { key: 'made-up' })).toBe(15);
  });
});
