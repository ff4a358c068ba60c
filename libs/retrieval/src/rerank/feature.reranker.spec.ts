import type { ToolDocument } from '../documents/tool.document';
import type { FusedCandidate } from '../funnel/rank.fusion';
import { DEFAULT_FEATURE_WEIGHTS, FeatureReranker } from './feature.reranker';

const doc = (name: string, description: string, parameters: string[] = []): ToolDocument => ({
  id: `ns/${name}`,
  version: '1',
  name,
  title: name,
  description,
  category: [],
  tags: [],
  parameters: parameters.map((p) => ({ name: p, description: '' })),
  exampleQueries: [],
  usageQueries: [],
  risk: 'read',
});
const fused = (d: ToolDocument, score: number, cosine?: number): FusedCandidate => ({
  id: d.id,
  version: d.version,
  fused: score,
  ...(cosine === undefined ? {} : { semantic: { rank: 1, score: cosine } }),
});

describe('FeatureReranker', () => {
  const water = doc('calculateCropWaterRequirement', 'Estimate irrigation needs of a crop', ['crop_type', 'area']);
  const growth = doc('getPlantGrowth', 'Growth data of plants in space agriculture', ['plant', 'duration']);
  const weather = doc('getWeather', 'Current weather for a city', ['city']);

  it('puts the tool whose name the query spells out above a better fused score', async () => {
    const reranker = new FeatureReranker();
    const ranked = await reranker.rerank('calculate the water requirement for my crop', [
      { candidate: fused(growth, 0.033), doc: growth },
      { candidate: fused(water, 0.03), doc: water },
    ]);
    expect(ranked.map((c) => c.id)).toEqual([water.id, growth.id]);
    expect(ranked[0].rerank).toMatchObject({ reranker: 'feature', rank: 1 });
    expect(ranked[0].rerank?.score).toBeGreaterThan(ranked[1].rerank?.score as number);
    // Everything the earlier stages said is kept on the hit.
    expect(ranked[0].fused).toBe(0.03);
  });

  it('scores each feature in [0, 1] and names a verbatim identifier', () => {
    const reranker = new FeatureReranker();
    const terms = new Set(['use', 'getweather', 'city', 'rome']);
    const features = reranker.features({ text: 'use getweather for the city of rome', terms }, fused(weather, 0.02, 0.7), weather, 0.04);
    expect(features).toEqual({ fused: 0.5, lexicalRank: 0, semanticRank: 60 / 61, nameCoverage: 0, nameMention: 1, parameterCoverage: 1, queryCoverage: 0.25, cosine: 0.7 });
    const unknown = reranker.features({ text: 'x', terms: new Set(['x']) }, fused(weather, 0.04), undefined, 0.04);
    expect(unknown).toEqual({ fused: 1, lexicalRank: 0, semanticRank: 0, nameCoverage: 0, nameMention: 0, parameterCoverage: 0, queryCoverage: 0, cosine: 0 });
  });

  it('keeps the fused order among candidates it cannot tell apart', async () => {
    const reranker = new FeatureReranker({ ...DEFAULT_FEATURE_WEIGHTS, fused: 0 });
    const a = doc('alpha', 'nothing in common');
    const b = doc('beta', 'nothing in common either');
    const ranked = await reranker.rerank('zebra', [
      { candidate: fused(b, 0.02), doc: b },
      { candidate: fused(a, 0.01), doc: a },
    ]);
    expect(ranked.map((c) => [c.id, c.rerank?.rank])).toEqual([
      [b.id, 1],
      [a.id, 2],
    ]);
  });
  it('weighs a short query by its own weights and a longer one by the general weights', async () => {
    const none = { fused: 0, lexicalRank: 0, semanticRank: 0, nameCoverage: 0, nameMention: 0, parameterCoverage: 0, queryCoverage: 0, cosine: 0 };
    const reranker = new FeatureReranker({ ...none, lexicalRank: 1 }, { maxTerms: 3, weights: { ...none, cosine: 1 } });
    const keyword: FusedCandidate = { ...fused(weather, 0.02, 0.2), lexical: { rank: 1, score: 9, matchedTerms: ['rain'] } };
    const semantic: FusedCandidate = { ...fused(growth, 0.01, 0.9) };
    const first = async (query: string) =>
      (
        await reranker.rerank(
          query,
          [keyword, semantic].map((candidate, i) => ({ candidate, doc: [weather, growth][i] })),
        )
      )[0].id;
    expect(await first('rain tomorrow')).toBe(growth.id);
    expect(await first('rain tomorrow in paris city centre afternoon')).toBe(weather.id);
  });
});
