import { DEFAULT_LIMITS, type ToolDescriptor } from '@toolgate/sdk';
import type { PlanningCandidate } from '../plan/plan.types';
import { coordinatedParts, namesTheTool, saidAtItsName } from './relevance.evidence';

function tool(id: string, title: string, description: string, tags: string[]): PlanningCandidate {
  const descriptor: ToolDescriptor = {
    name: id.split('/')[1],
    title,
    description,
    category: [],
    tags,
    inputSchema: { type: 'object', properties: {} },
    outputSchema: { type: 'object', properties: {} },
    examples: [],
    permissions: { scopes: [], risk: 'read' },
    limits: DEFAULT_LIMITS,
    execution: 'server',
    hasHealthCheck: false,
  };
  return { id, version: '1.0.0', descriptor, score: 1, rank: 1 };
}

describe('namesTheTool: tags', () => {
  const calculator = (tags: string[]) => tool('calculator/evaluate', 'Evaluate a math expression', 'Works out the value of a formula.', tags);

  it('takes a tag its author gave the tool as a name of it', () => {
    expect(namesTheTool('calculate 17 * 23', calculator(['calculator', 'calculate']))).toBe(true);
    expect(namesTheTool('how many days between the two dates?', tool('datetime/difference', 'Difference', 'Elapsed time.', ['date difference', 'days between']))).toBe(true);
  });

  it('takes a tag only as a whole', () => {
    expect(namesTheTool('calculate 17 * 23', calculator([]))).toBe(false);
    expect(namesTheTool('calculate 17 * 23', calculator(['calculate sums of money']))).toBe(false);
    expect(namesTheTool('what is the date today', tool('datetime/difference', 'Difference', 'Elapsed time.', ['date difference']))).toBe(false);
  });
});

describe('namesTheTool: what the request asks for', () => {
  const range = tool('physics/projectile_range', 'Projectile range', 'How far a projectile launched at an angle travels.', []);
  const roots = tool('algebra/solve_cubic', 'Solve a cubic', 'Solves a cubic polynomial from its coefficients.', []);
  const album = tool('music/album_details', 'Album details', 'Details of a music album.', []);

  it('does not offer a close fit for a quantity it never speaks of', () => {
    expect(namesTheTool('What is the maximum height of a projectile launched at 30 degrees?', range, true)).toBe(false);
    expect(namesTheTool('What is the range of a projectile launched at 30 degrees?', range, true)).toBe(true);
  });

  it('offers a close fit whose name the request says whole, or one that gives everything about its subject', () => {
    expect(namesTheTool('What are the zeros of the cubic x^3 - 1, solve it', roots, true)).toBe(true);
    expect(namesTheTool('What are the zeros of the cubic x^3 - 1?', roots, true)).toBe(false);
    expect(namesTheTool('What is the release year of the album Blue?', album, true)).toBe(true);
  });

  it('does not offer a tool whose name qualifies the thing asked for otherwise ("the freezing point" to a boiling-point tool)', () => {
    const boiling = tool('thermo/calculate_boiling_point', 'Boiling point', 'Calculates the boiling point of a substance at a pressure.', []);
    const highScore = tool('tracker/high_score', 'High score', 'The highest score reached in a game on a platform.', []);
    const tickets = tool('concerts/book_ticket', 'Book a ticket', 'Books concert tickets.', []);
    expect(namesTheTool('What is the freezing point of water at a pressure of 10 kPa?', boiling, true)).toBe(false);
    expect(namesTheTool('What is the boiling point of water at a pressure of 10 kPa?', boiling, true)).toBe(true);
    expect(namesTheTool("What's the lowest score in the Flappy Bird game?", highScore, true)).toBe(false);
    // An imperative asks for an action, whatever the words before its noun.
    expect(namesTheTool('Get me two tickets for the next Eminem concert', tickets, true)).toBe(true);
  });
});

describe('coordinatedParts', () => {
  it('splits at commas and "and", never inside a number written with thousands separators ("10,000 yuan")', () => {
    expect(coordinatedParts('Transfer 10,000 yuan to Li Lei, and deposit 5,000 yuan, 3, 4').map((p) => p.text)).toEqual(['Transfer 10,000 yuan to Li Lei', 'deposit 5,000 yuan', '3', '4']);
  });

  it('never splits a quoted passage: it is one value', () => {
    expect(coordinatedParts('Update the file with "1. Complete the report; 2. Prepare the slides, and the budget", then share it.').map((p) => p.text)).toEqual([
      'Update the file with "1. Complete the report; 2. Prepare the slides, and the budget"',
      'then share it.',
    ]);
    // A request sent whole in quotes is still read as words.
    expect(coordinatedParts('"Find flights, and book a hotel"').map((p) => p.text)).toEqual(['"Find flights', 'book a hotel"']);
  });
});

describe('saidAtItsName', () => {
  it("finds the field's name right beside the value, the rest of a longer name anywhere in the text", () => {
    expect(saidAtItsName('using the command netsh wlan disconnect', 'command', 'netsh wlan disconnect')).toBe(true);
    expect(saidAtItsName('close firefox using taskkill command', 'command', 'taskkill')).toBe(true);
    expect(saidAtItsName('details for the user with the ID 7890', 'user_id', '7890')).toBe(true);
    expect(saidAtItsName('details for the order with the ID 7890', 'user_id', '7890')).toBe(false);
  });

  it('never for a value far from the name, one not in the text, or a name any tool could have', () => {
    expect(saidAtItsName('the command prompt was open when I typed ls -la at home', 'command', 'ls -la')).toBe(false);
    expect(saidAtItsName('using the command dir', 'command', 'ls')).toBe(false);
    expect(saidAtItsName('the value 42', 'value', '42')).toBe(false);
  });
});
