import Table from 'cli-table3';

export const printJson = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
};

export function printTable(head: string[], rows: (string | number)[][]): void {
  const table = new Table({ head, style: { head: [], border: [] }, wordWrap: true });
  table.push(...rows.map((r) => r.map(String)));
  process.stdout.write(`${table.toString()}\n`);
}

export const truncate = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
