import { interleaveByRank } from './coverage-merge';

const ids = (...list: string[]) => list.map((id) => ({ id }));

describe('interleaveByRank', () => {
  it('takes every list at each rank before going deeper, each id once', () => {
    const merged = interleaveByRank([ids('a1', 'a2', 'shared'), ids('b1', 'shared', 'b3'), ids('a1', 'c2')]);
    expect(merged.map((m) => m.id)).toEqual(['a1', 'b1', 'a2', 'shared', 'c2', 'b3']);
  });

  it('keeps the first occurrence (its list decides the explanation) and tolerates empty lists', () => {
    const merged = interleaveByRank([[{ id: 'x', from: 1 }], [], [{ id: 'x', from: 3 }]]);
    expect(merged).toEqual([{ id: 'x', from: 1 }]);
    expect(interleaveByRank([])).toEqual([]);
  });
});
