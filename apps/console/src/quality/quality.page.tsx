import { useState } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { TOOL_QUALITY, type ToolQualityReport } from '../api/console.queries';
import { hrefOf } from '../app/hash.route';
import { ErrorNote, formatMs, percent, Section, TableHead } from '../app/shared.view';
import { useQuery } from '../app/use-query.hook';

const WINDOWS = [
  { label: 'last hour', sinceHours: 1, bucketMinutes: 5 },
  { label: 'last 24 hours', sinceHours: 24, bucketMinutes: 60 },
  { label: 'last 7 days', sinceHours: 168, bucketMinutes: 1440 },
];
/** Colour-blind-safe (Okabe–Ito) line colours for the weakest tools. */
const COLOURS = ['#d55e00', '#0072b2', '#009e73', '#cc79a7', '#e69f00'];
const CHARTED = 5;

const bucketLabel = (iso: string, minutes: number) => {
  const date = new Date(iso);
  return minutes >= 1440 ? date.toLocaleDateString() : date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
};

export function QualityPage() {
  const [windowIndex, setWindowIndex] = useState(1);
  const { sinceHours, bucketMinutes } = WINDOWS[windowIndex];
  const quality = useQuery<{ toolQuality: ToolQualityReport }>(TOOL_QUALITY, { input: { sinceHours, bucketMinutes } });
  const report = quality.data?.toolQuality;
  const weakest = (report?.tools ?? []).slice(0, CHARTED);
  // One row per bucket, one column per charted tool: Recharts draws a line per column.
  const series = (weakest[0]?.series ?? []).map((bucket, index) => ({
    time: bucketLabel(bucket.start, bucketMinutes),
    ...Object.fromEntries(weakest.map((tool) => [tool.tool, tool.series[index].calls === 0 ? null : Number(((tool.series[index].failures / tool.series[index].calls) * 100).toFixed(1))])),
  }));
  const latency = (report?.tools ?? []).filter((tool) => tool.p95Ms !== null).map((tool) => ({ tool: tool.tool, p95: Number((tool.p95Ms as number).toFixed(1)) }));

  return (
    <>
      <h1>Tool quality</h1>
      <div className="toolbar">
        <label htmlFor="window">Window</label>
        <select id="window" value={windowIndex} onChange={(event) => setWindowIndex(Number(event.target.value))}>
          {WINDOWS.map((w, index) => (
            <option key={w.label} value={index}>
              {w.label}
            </option>
          ))}
        </select>
        <button type="button" onClick={quality.reload}>
          Refresh
        </button>
      </div>
      <ErrorNote error={quality.error} />
      {report && (
        <>
          <p className="small muted">
            {report.runsConsidered} run{report.runsConsidered === 1 ? '' : 's'} of your tenant since {new Date(report.since).toLocaleString()}
            {report.truncated ? ' (the newest 500 only: older runs in the window were not read)' : ''}.
          </p>
          {report.tools.length === 0 ? (
            <p>No tool calls in this window.</p>
          ) : (
            <>
              <Section title="Failure rate over time, weakest tools">
                <div className="chart" role="img" aria-label={`Line chart of the failure rate per ${bucketMinutes} minutes for ${weakest.map((t) => t.tool).join(', ')}`}>
                  <ResponsiveContainer width="100%" height={260}>
                    <LineChart data={series} margin={{ left: 8, right: 16 }}>
                      <CartesianGrid strokeDasharray="3 3" />
                      <XAxis dataKey="time" tick={{ fontSize: 11 }} />
                      <YAxis unit=" %" domain={[0, 100]} />
                      <Tooltip />
                      <Legend />
                      {weakest.map((tool, index) => (
                        <Line key={tool.tool} type="monotone" dataKey={tool.tool} stroke={COLOURS[index]} connectNulls dot isAnimationActive={false} />
                      ))}
                    </LineChart>
                  </ResponsiveContainer>
                </div>
              </Section>
              <Section title="p95 latency per tool">
                <div className="chart" role="img" aria-label="Bar chart of each tool's p95 latency in milliseconds">
                  <ResponsiveContainer width="100%" height={Math.max(120, latency.length * 28 + 40)}>
                    <BarChart data={latency} layout="vertical" margin={{ left: 8, right: 16 }}>
                      <CartesianGrid strokeDasharray="3 3" />
                      <XAxis type="number" unit=" ms" />
                      <YAxis type="category" dataKey="tool" width={220} tick={{ fontSize: 11 }} />
                      <Tooltip />
                      <Bar dataKey="p95" name="p95 ms" fill="#0072b2" isAnimationActive={false} />
                    </BarChart>
                  </ResponsiveContainer>
                </div>
              </Section>
              <Section title="Where tool calls break (weakest first)">
                <table>
                  <TableHead columns={['Tool', 'Calls', 'Failed', 'Failure rate', 'Retries', 'p95', 'Tasks that led to failures']} />
                  <tbody>
                    {report.tools.map((tool) => (
                      <tr key={tool.tool}>
                        <td>
                          <code>{tool.tool}</code>
                        </td>
                        <td>{tool.calls}</td>
                        <td>{tool.failures}</td>
                        <td>{percent(tool.failureRate)}</td>
                        <td>{tool.retries}</td>
                        <td>{formatMs(tool.p95Ms)}</td>
                        <td>
                          {tool.failingQueries.length === 0 ? (
                            <span className="muted">none</span>
                          ) : (
                            <ul className="plain">
                              {tool.failingQueries.map((failure) => (
                                <li key={`${failure.runId}:${failure.at}`}>
                                  <a href={hrefOf({ page: 'run', runId: failure.runId })}>{failure.task ?? 'own plan'}</a> <span className="small">{failure.code}</span>
                                </li>
                              ))}
                            </ul>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </Section>
            </>
          )}
        </>
      )}
    </>
  );
}
