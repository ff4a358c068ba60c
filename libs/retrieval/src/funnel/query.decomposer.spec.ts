import { decomposeQuery } from './query.decomposer';

describe('decomposeQuery', () => {
  it('keeps a single request whole', () => {
    expect(decomposeQuery('Can I find academic research papers on this topic?')).toEqual(['Can I find academic research papers on this topic?']);
    expect(decomposeQuery('Convert 1.5 km to miles, e.g. for a run')).toEqual(['Convert 1.5 km to miles, e.g. for a run']);
  });

  it('splits sentences and connectives into one clause per request', () => {
    expect(
      decomposeQuery('First, calculate the water requirement for growing Soybeans. Then, retrieve the growth of lettuce plants in space. Finally, obtain air quality data for New York City.'),
    ).toEqual(['First, calculate the water requirement for growing Soybeans.', 'retrieve the growth of lettuce plants in space.', 'obtain air quality data for New York City.']);
    expect(decomposeQuery('Book a hotel in Paris and then check the weather there; also convert 100 USD to EUR')).toEqual([
      'Book a hotel in Paris',
      'check the weather there',
      'convert 100 USD to EUR',
    ]);
    expect(decomposeQuery('Find pharmaceutical consulting services in New York and list common symptoms of diseases in small animals')).toEqual([
      'Find pharmaceutical consulting services in New York',
      'list common symptoms of diseases in small animals',
    ]);
  });

  it('keeps an enumeration ("A, B, and C") inside its clause, but splits ", and <request verb>"', () => {
    expect(decomposeQuery('Provide the details of the film, including the genre, director, release date, and rating.')).toEqual([
      'Provide the details of the film, including the genre, director, release date, and rating.',
    ]);
    expect(decomposeQuery('Look up the Gucci brand history, and find its founders')).toEqual(['Look up the Gucci brand history', 'find its founders']);
  });

  it('joins fragments too thin to search on to their neighbour', () => {
    expect(decomposeQuery('Please help me. Translate this letter into German.')).toEqual(['Please help me. Translate this letter into German.']);
    expect(decomposeQuery('Weather in Rome? Thanks.')).toEqual(['Weather in Rome? Thanks.']);
  });

  it('caps the number of clauses by joining the tail', () => {
    const clauses = decomposeQuery('Get stock prices. Then get news. Then get weather. Then get traffic.', { maxClauses: 2, minClauseTerms: 2 });
    expect(clauses).toEqual(['Get stock prices.', 'get news. get weather. get traffic.']);
  });
});
