import { extractCsvBlock, extractSortKey } from './table-text.extractor';

describe('extractCsvBlock', () => {
  it('reads the table pasted under the request, with its header', () => {
    const block = extractCsvBlock('average price by category\ncategory,item,price\nfruit,apple,1.2\nveg,kale,2.5');
    expect(block).toMatchObject({ text: 'category,item,price\nfruit,apple,1.2\nveg,kale,2.5', header: ['category', 'item', 'price'] });
  });

  it('finds none in prose lines or a single line', () => {
    expect(extractCsvBlock('first line\nsecond, with a comma\nthird without')).toBeUndefined();
    expect(extractCsvBlock('a,b\n')).toBeUndefined();
  });
});

describe('extractSortKey', () => {
  it('reads the column and a written direction', () => {
    expect(extractSortKey('sort these by name ascending:')).toMatchObject({ column: 'name', direction: 'asc' });
    expect(extractSortKey('orders sorted by date')).toMatchObject({ column: 'date', direction: undefined });
  });

  it('reads "top N by" as descending and "lowest N by" as ascending', () => {
    expect(extractSortKey('top 2 products by revenue')).toMatchObject({ column: 'revenue', direction: 'desc' });
    expect(extractSortKey('the lowest 3 items by price')).toMatchObject({ column: 'price', direction: 'asc' });
    expect(extractSortKey('total sales per region')).toBeUndefined();
  });
});
