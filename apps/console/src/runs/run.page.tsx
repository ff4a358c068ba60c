import { useEffect, useRef, useState } from 'react';
import { APPROVE_STEP, CANCEL_RUN, REJECT_STEP, RUN, RUN_EVENTS, type Run, type RunEvent, type RunStatus, type RunStep, type StepStatus } from '../api/console.queries';
import { GraphqlError } from '../api/graphql.client';
import { useSession } from '../app/console.context';
import { hrefOf } from '../app/hash.route';
import { Badge, ErrorNote, formatMs, formatTime, Section, TableHead } from '../app/shared.view';
import { useMutation } from '../app/use-mutation.hook';
import { useQuery } from '../app/use-query.hook';
import { RunDag } from './run-dag.view';

const FINAL: RunStatus[] = ['SUCCEEDED', 'FAILED', 'CANCELLED'];
/** Events after which the run's recorded state has more than a status to show (outputs, errors, decisions). */
const RELOAD_ON = new Set(['STEP_FINISHED', 'APPROVAL_REQUESTED', 'APPROVAL_DECIDED', 'REPLANNED', 'RUN_FINISHED']);

/** What a step's status is after an event, when the event says. */
function stepStatusAfter(event: RunEvent): StepStatus | null {
  if (event.type === 'STEP_STARTED') return 'RUNNING';
  if (event.type === 'APPROVAL_REQUESTED') return 'PENDING_APPROVAL';
  if (event.type === 'STEP_FINISHED') return event.status as StepStatus;
  return null;
}

export function RunPage({ runId }: { runId: string }) {
  const { client } = useSession();
  const run = useQuery<{ run: Run | null }>(RUN, { id: runId });
  /** Step states the live events reported, with when they arrived: newer than the loaded run, they are what is true now. */
  const [reported, setReported] = useState<Record<string, { status: StepStatus; at: number }>>({});
  const [events, setEvents] = useState<RunEvent[]>([]);
  const [liveError, setLiveError] = useState<GraphqlError | null>(null);
  const [live, setLive] = useState(false);
  const lastSeq = useRef(0);
  const current = run.data?.run;
  // Keyed by status too: a decision resumes a paused run, and a new subscription replays what it missed.
  const watching = current !== undefined && current !== null && !FINAL.includes(current.status) ? current.status : null;
  const { reload } = run;
  const statuses: Record<string, StepStatus> = Object.fromEntries(
    Object.entries(reported)
      .filter(([, report]) => report.at >= run.requestedAt)
      .map(([id, report]) => [id, report.status]),
  );

  // One subscription per run while it is not final: events recorded so far, then live ones, until RUN_FINISHED.
  useEffect(() => {
    if (!watching) return;
    setLive(true);
    const stop = client.subscribe<{ runEvents: RunEvent }>(
      RUN_EVENTS,
      { runId },
      {
        next: ({ runEvents: event }) => {
          // A new subscription replays the run from its first event: what was seen already changes nothing.
          if (event.seq <= lastSeq.current) return;
          lastSeq.current = event.seq;
          setEvents((previous) => [...previous, event]);
          const status = stepStatusAfter(event);
          if (status && event.stepId) setReported((previous) => ({ ...previous, [event.stepId as string]: { status, at: Date.now() } }));
          if (RELOAD_ON.has(event.type)) reload();
        },
        error: (error) => {
          setLiveError(error);
          setLive(false);
        },
        complete: () => setLive(false),
      },
    );
    return () => {
      stop();
      setLive(false);
    };
  }, [client, runId, watching, reload]);

  if (run.error && !current) return <ErrorNote error={run.error} />;
  if (run.loading && !run.data) return <p>Loading run {runId}…</p>;
  if (!current) {
    return (
      <>
        <h1>Run not found</h1>
        <p>
          There is no run <code>{runId}</code> that your key may see. <a href={hrefOf({ page: 'runs' })}>Back to runs</a>
        </p>
      </>
    );
  }
  return (
    <>
      <h1>
        Run <code>{current.id.slice(0, 8)}</code> <Badge value={current.status} />
      </h1>
      <p className="lead">{current.task ?? 'A plan the caller supplied.'}</p>
      <dl className="facts">
        <dt>Owner</dt>
        <dd>
          {current.owner.tenant}/{current.owner.subject}
        </dd>
        <dt>Started</dt>
        <dd>{formatTime(current.startedAt)}</dd>
        <dt>Finished</dt>
        <dd>{formatTime(current.finishedAt)}</dd>
        <dt>Trace</dt>
        <dd>
          {current.traceUrl ? (
            <a href={current.traceUrl} target="_blank" rel="noreferrer">
              <code>{current.traceId}</code>
            </a>
          ) : (
            <code>{current.traceId}</code>
          )}
        </dd>
        {current.reason && (
          <>
            <dt>Why</dt>
            <dd>{current.reason}</dd>
          </>
        )}
        {current.replans ? (
          <>
            <dt>Re-plans</dt>
            <dd>{current.replans}</dd>
          </>
        ) : null}
      </dl>
      <p className="small" aria-live="polite">
        {live ? '● Live: following this run’s events' : FINAL.includes(current.status) ? 'This run is over.' : 'Not following live.'}
      </p>
      <ErrorNote error={liveError} />
      {!FINAL.includes(current.status) && <CancelButton runId={current.id} onDone={reload} />}
      <RunDag steps={current.steps} statuses={statuses} />
      <Section title="Steps">
        <table>
          <TableHead columns={['Step', 'Tool', 'Status', 'Attempts', 'Took', 'Result']} />
          <tbody>
            {current.steps.map((step) => (
              <StepRow key={step.id} runId={current.id} step={step} status={statuses[step.id] ?? step.status} onDecided={reload} />
            ))}
          </tbody>
        </table>
      </Section>
      <Section title={`Live events (${events.length})`}>
        <ol className="events">
          {events.map((event) => (
            <li key={event.seq}>
              <span className="muted small">{new Date(event.at).toLocaleTimeString()}</span> {event.type}
              {event.stepId ? ` ${event.stepId}` : ''}
              {event.status ? ` → ${event.status}` : ''}
            </li>
          ))}
        </ol>
      </Section>
    </>
  );
}

function StepRow({ runId, step, status, onDecided }: { runId: string; step: RunStep; status: StepStatus; onDecided: () => void }) {
  return (
    <tr>
      <td>
        <strong>{step.id}</strong>
        {step.dependsOn.length > 0 && <div className="small muted">after {step.dependsOn.join(', ')}</div>}
      </td>
      <td>
        <code>{step.tool}</code>
        {step.fallbackOf && <div className="small">fallback of {step.fallbackOf}</div>}
      </td>
      <td>
        <Badge value={status} />
        {step.reason && <div className="small">{step.reason}</div>}
      </td>
      <td>{step.attempts}</td>
      <td>{formatMs(step.startedAt ? step.durationMs : null)}</td>
      <td>
        {step.error && (
          <div className="error small">
            <strong>{step.error.code}</strong> {step.error.message}
            {step.error.path ? ` (at ${step.error.path})` : ''}
          </div>
        )}
        {step.outputWithheld ? (
          <span className="muted small">output withheld from your key</span>
        ) : step.output !== null && step.output !== undefined ? (
          <pre className="output">{JSON.stringify(step.output, null, 2)}</pre>
        ) : null}
        {status === 'PENDING_APPROVAL' && <Decision runId={runId} stepId={step.id} onDecided={onDecided} />}
      </td>
    </tr>
  );
}

function Decision({ runId, stepId, onDecided }: { runId: string; stepId: string; onDecided: () => void }) {
  const [comment, setComment] = useState('');
  const { send, busy, error } = useMutation(onDecided);
  const decide = (mutation: string) => send(mutation, { runId, stepId, ...(comment.trim() ? { comment: comment.trim() } : {}) });
  return (
    <div className="decision">
      <label htmlFor={`comment-${stepId}`}>Comment for step {stepId}</label>
      <input id={`comment-${stepId}`} value={comment} onChange={(event) => setComment(event.target.value)} />
      <button type="button" disabled={busy} onClick={() => void decide(APPROVE_STEP)}>
        Approve {stepId}
      </button>
      <button type="button" className="danger" disabled={busy} onClick={() => void decide(REJECT_STEP)}>
        Reject {stepId}
      </button>
      <ErrorNote error={error} />
    </div>
  );
}

function CancelButton({ runId, onDone }: { runId: string; onDone: () => void }) {
  const { send, error } = useMutation(onDone);
  const cancel = () => send(CANCEL_RUN, { runId });
  return (
    <div>
      <button type="button" className="danger" onClick={() => void cancel()}>
        Cancel run
      </button>
      <ErrorNote error={error} />
    </div>
  );
}
