import type { ValueTransformer } from 'typeorm';

/**
 * Instants as epoch milliseconds in a bigint column: the same type and precision on SQLite and
 * PostgreSQL (whose driver returns bigint as a string).
 */
export const epochMillis: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null ? null : Number(value)),
};
