import type { ReactNode } from 'react';
import type { GraphqlError } from '../api/graphql.client';

/** A state as text and colour: the word carries the meaning, the colour only helps. */
export function Badge({ value, tone }: { value: string; tone?: 'good' | 'bad' | 'warn' | 'info' | 'muted' }) {
  return <span className={`badge ${tone ?? toneOf(value)}`}>{value.replaceAll('_', ' ')}</span>;
}

export function toneOf(value: string): 'good' | 'bad' | 'warn' | 'info' | 'muted' {
  if (['SUCCEEDED', 'ACTIVE', 'CLOSED', 'KEPT', 'healthy'].includes(value)) return 'good';
  if (['FAILED', 'OPEN', 'QUARANTINED', 'unhealthy', 'UNHEALTHY'].includes(value)) return 'bad';
  if (['PENDING_APPROVAL', 'HALF_OPEN', 'CANARY', 'FALLBACK', 'approval pending'].includes(value)) return 'warn';
  if (['RUNNING'].includes(value)) return 'info';
  return 'muted';
}

export function ErrorNote({ error }: { error: GraphqlError | null }) {
  if (!error) return null;
  return (
    <p role="alert" className="error">
      <strong>{error.code}</strong> {error.message}
    </p>
  );
}

export function Section({ title, children, actions }: { title: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <section className="panel" aria-label={title}>
      <div className="panel-head">
        <h2>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

/** A table's column headings. */
export function TableHead({ columns }: { columns: string[] }) {
  return (
    <thead>
      <tr>
        {columns.map((column) => (
          <th key={column} scope="col">
            {column}
          </th>
        ))}
      </tr>
    </thead>
  );
}

export const formatMs = (ms: number | null | undefined): string => (ms === null || ms === undefined ? '—' : ms < 1000 ? `${ms.toFixed(ms < 10 ? 1 : 0)} ms` : `${(ms / 1000).toFixed(2)} s`);
export const formatTime = (iso: string | null | undefined): string => (iso ? new Date(iso).toLocaleString() : '—');
export const percent = (ratio: number): string => `${(ratio * 100).toFixed(ratio > 0 && ratio < 0.1 ? 1 : 0)} %`;
