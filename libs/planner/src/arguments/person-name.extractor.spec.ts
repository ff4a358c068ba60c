import { extractPersonName } from './person-name.extractor';

describe('extractPersonName', () => {
  it('reads named parts in any order', () => {
    const name = extractPersonName('email is li.wei@example.cn, first name Wei, last name Li');
    expect([name.first?.value, name.last?.value]).toEqual(['Wei', 'Li']);
  });

  it('reads the capitalised words after a lead or contact cue', () => {
    const name = extractPersonName('Add a new lead: Jane Doe, jane.doe@acme.io');
    expect([name.first?.value, name.last?.value]).toEqual(['Jane', 'Doe']);
    expect(extractPersonName('Add Grace (grace@navy.example.mil) as a lead').first?.value).toBe('Grace');
    expect(extractPersonName('Add Grace (grace@navy.example.mil) as a lead').last).toBeUndefined();
  });

  it('finds no name in lowercase prose', () => {
    expect(extractPersonName('create a lead for the new customer')).toEqual({});
  });
});
