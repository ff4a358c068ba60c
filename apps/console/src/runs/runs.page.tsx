import { useEffect, useState } from 'react';
import { RUNS, type RunSummary } from '../api/console.queries';
import { hrefOf } from '../app/hash.route';
import { Badge, ErrorNote, formatMs, formatTime, Section, TableHead } from '../app/shared.view';
import { useQuery } from '../app/use-query.hook';

const STATUSES = ['', 'RUNNING', 'PENDING_APPROVAL', 'SUCCEEDED', 'FAILED', 'CANCELLED'] as const;

const REFRESH_MS = 5000;

const durationOf = (run: RunSummary): number | null => (run.finishedAt ? new Date(run.finishedAt).getTime() - new Date(run.startedAt).getTime() : null);

export function RunsPage() {
  const [status, setStatus] = useState<(typeof STATUSES)[number]>('');
  const runs = useQuery<{ runs: RunSummary[] }>(RUNS, { filter: { limit: 50, ...(status ? { status } : {}) } });
  const inProgress = (runs.data?.runs ?? []).some((run) => run.status === 'RUNNING' || run.status === 'PENDING_APPROVAL');
  const { reload } = runs;
  // While a listed run is still going, the list follows it; a finished list stays still.
  useEffect(() => {
    if (!inProgress) return;
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [inProgress, reload]);
  return (
    <>
      <h1>Runs</h1>
      <div className="toolbar">
        <label htmlFor="status-filter">Status</label>
        <select id="status-filter" value={status} onChange={(event) => setStatus(event.target.value as (typeof STATUSES)[number])}>
          {STATUSES.map((value) => (
            <option key={value} value={value}>
              {value ? value.replaceAll('_', ' ') : 'any'}
            </option>
          ))}
        </select>
        <button type="button" onClick={runs.reload}>
          Refresh
        </button>
      </div>
      <ErrorNote error={runs.error} />
      {runs.data && (
        <Section title={`Newest runs of your tenant (${runs.data.runs.length})`}>
          {runs.data.runs.length === 0 ? (
            <p className="muted">No runs yet.</p>
          ) : (
            <table>
              <TableHead columns={['Run', 'Status', 'Task', 'Steps', 'By', 'Started', 'Took']} />
              <tbody>
                {runs.data.runs.map((run) => (
                  <tr key={run.id}>
                    <td>
                      <a href={hrefOf({ page: 'run', runId: run.id })}>
                        <code>{run.id.slice(0, 8)}</code>
                      </a>
                    </td>
                    <td>
                      <Badge value={run.status} />
                    </td>
                    <td>{run.task ?? <span className="muted">own plan</span>}</td>
                    <td>
                      {run.steps.map((step) => (
                        <span key={step.id} className="step-chip" title={`${step.id}: ${step.tool} ${step.status}`}>
                          {step.tool.split('@')[0]} <Badge value={step.status} />
                        </span>
                      ))}
                    </td>
                    <td>{run.owner.subject}</td>
                    <td>{formatTime(run.startedAt)}</td>
                    <td>{formatMs(durationOf(run))}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Section>
      )}
    </>
  );
}
