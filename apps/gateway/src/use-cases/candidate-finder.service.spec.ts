import type { HealthMonitor } from '@toolgate/executor';
import type { AccessPolicyService, CatalogService, Principal } from '@toolgate/registry';
import type { RetrievalModuleOptions, RetrievedTool, ToolRetriever } from '@toolgate/retrieval';
import { ErrorCode, ToolgateError } from '@toolgate/sdk';
import { CandidateFinder } from './candidate-finder.service';

const WARMUP = { mode: 'degraded', waitMs: 1000 } as const;
const principal: Principal = { tenant: 'acme', subject: 'alice', roles: ['reader'] };
const hit = (id: string, fused: number, rank = 0) => ({ id, version: '1.0.0', fused, rank }) as RetrievedTool;

/** A catalog of `ns/<name>` tools at 1.0.0; `hidden/*` are tools the caller may not discover. */
function finder(hits: RetrievedTool[], unhealthy: string[] = []) {
  const search = jest.fn(async () => ({ hits }));
  const retriever = { searchWhenWarm: search, index: { driver: 'embedded' }, model: 'hashing' } as unknown as ToolRetriever;
  const catalog = {
    resolve: (ref: string) => {
      const id = ref.split('@')[0];
      if (id.startsWith('hidden/')) throw new ToolgateError(ErrorCode.TOOL_NOT_FOUND, `tool "${ref}" not found`);
      if (id === 'broken/tool') throw new Error('database gone');
      return { tool: { id }, version: { version: '1.0.0', descriptor: { name: id } } };
    },
  } as unknown as CatalogService;
  const access = { discoveryScope: () => ({ tools: ['**'] }) } as unknown as AccessPolicyService;
  const health = {
    snapshot: () => [...unhealthy.map((toolId) => ({ toolId, version: '1.0.0', healthy: false })), { toolId: 'ns/well', version: '1.0.0', healthy: true }],
    isHealthy: (toolId: string) => !unhealthy.includes(toolId),
  } as unknown as HealthMonitor;
  return { finder: new CandidateFinder(retriever, catalog, access, health, { warmup: WARMUP } as RetrievalModuleOptions), search };
}

describe('CandidateFinder', () => {
  it('asks for one more hit per unhealthy version and drops those versions, keeping the limit', async () => {
    const { finder: subject, search } = finder([hit('ns/a', 0.9), hit('ns/sick', 0.8), hit('ns/b', 0.7), hit('ns/ill', 0.6), hit('ns/c', 0.5), hit('ns/d', 0.4)], ['ns/sick', 'ns/ill']);
    const found = await subject.find('convert miles', 3, principal);
    // The caller's tenant goes with the scope: only its own learning ranks its hits.
    expect(search).toHaveBeenCalledWith('convert miles', 5, { scope: { tools: ['**'] }, tenant: 'acme' }, WARMUP);
    expect(found.map((f) => [f.tool.id, f.hit.fused])).toEqual([
      ['ns/a', 0.9],
      ['ns/b', 0.7],
      ['ns/c', 0.5],
    ]);
  });

  it('keeps only hits the catalog shows the caller (the authority when the index drifts), once per tool', async () => {
    const { finder: subject } = finder([hit('hidden/secret', 0.9), hit('ns/a', 0.8), hit('ns/a', 0.7), hit('ns/b', 0.6)]);
    expect((await subject.find('anything', 5, principal)).map((f) => f.tool.id)).toEqual(['ns/a', 'ns/b']);
  });

  it('adds named tools only when visible, healthy and not already found', async () => {
    const { finder: subject } = finder([hit('ns/a', 0.9)], ['ns/sick']);
    const found = await subject.find('anything', 5, principal);
    const named = subject.named(['ns/a@1.0.0', 'hidden/secret', 'ns/sick', 'ns/chosen', 'ns/chosen@1.0.0', 'ns/previous'], principal, found);
    expect(named.map((n) => n.tool.id)).toEqual(['ns/chosen', 'ns/previous']);
  });

  it('explains the funnel around the cut: kept, past the cut, unhealthy, repeated; never a hit the catalog does not give the caller', async () => {
    const hits = [hit('ns/a', 0.9, 1), hit('hidden/secret', 0.85, 2), hit('ns/sick', 0.8, 3), hit('ns/a', 0.75, 4), hit('ns/b', 0.7, 5), hit('ns/c', 0.6, 6), hit('ns/d', 0.5, 7), hit('ns/e', 0.4, 8)];
    const { finder: subject, search } = finder(hits, ['ns/sick']);
    const considered = await subject.consider('anything', 2, 2, principal);
    expect(search).toHaveBeenCalledWith('anything', 5, expect.anything(), WARMUP);
    expect(considered.map((c) => [c.tool.id, c.verdict, c.reason])).toEqual([
      ['ns/a', 'KEPT', 'among the top 2'],
      ['ns/sick', 'UNHEALTHY', 'ns/sick@1.0.0 failed its health check'],
      ['ns/a', 'DUPLICATE', 'this tool ranked higher already'],
      ['ns/b', 'KEPT', 'among the top 2'],
      ['ns/c', 'BELOW_CUTOFF', 'ranked #6, below the top 2'],
      ['ns/d', 'BELOW_CUTOFF', 'ranked #7, below the top 2'],
    ]);
    // find is the kept part of the same funnel.
    expect((await subject.find('anything', 2, principal)).map((f) => f.tool.id)).toEqual(['ns/a', 'ns/b']);
  });

  it('lets a failure that is not a domain error through', async () => {
    const { finder: subject } = finder([hit('broken/tool', 0.9)]);
    await expect(subject.find('anything', 5, principal)).rejects.toThrow('database gone');
  });
});
