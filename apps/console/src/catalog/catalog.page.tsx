import { useState } from 'react';
import { APPROVE_VERSION, CATALOG, type CatalogTool, type ToolHealthReport, type ToolVersion } from '../api/console.queries';
import { useSession } from '../app/console.context';
import { Badge, ErrorNote, formatTime, Section, TableHead } from '../app/shared.view';
import { useMutation } from '../app/use-mutation.hook';
import { useQuery } from '../app/use-query.hook';

interface CatalogData {
  tools: CatalogTool[];
  toolHealth: ToolHealthReport[];
}

/** A version that waits for a platform admin: a changed descriptor, or one the integrity scan quarantined. */
/** Rows rendered at once: a catalog of thousands of tools stays responsive. */
const PAGE = 100;

const awaitingHash = (version: ToolVersion): string | null => version.pendingDescriptorHash ?? (version.state === 'QUARANTINED' ? version.descriptorHash : null);

export function CatalogPage() {
  const { me } = useSession();
  // Admins also see tools without an active version: those are the ones that need them.
  const catalog = useQuery<CatalogData>(CATALOG, { filter: me.admin ? { includeInactive: true } : {} });
  const health = new Map((catalog.data?.toolHealth ?? []).map((report) => [`${report.toolId}@${report.version}`, report]));
  const [filter, setFilter] = useState('');
  const [shown, setShown] = useState(PAGE);
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const matching = (catalog.data?.tools ?? []).filter((tool) => words.every((word) => `${tool.id} ${tool.title} ${tool.risk}`.toLowerCase().includes(word)));
  const awaiting = (catalog.data?.tools ?? []).flatMap((tool) => tool.versions.filter((v) => awaitingHash(v) !== null).map((version) => ({ tool, version })));

  return (
    <>
      <h1>Catalog</h1>
      <ErrorNote error={catalog.error} />
      {catalog.loading && !catalog.data && <p>Loading the catalog…</p>}
      {catalog.data && (
        <>
          <Section title={`Waiting for approval (${awaiting.length})`}>
            {awaiting.length === 0 ? (
              <p className="muted">No changed or quarantined descriptor waits for a decision.</p>
            ) : (
              <ul className="cards">
                {awaiting.map(({ tool, version }) => (
                  <ApprovalCard key={`${tool.id}@${version.version}`} tool={tool} version={version} onDecided={catalog.reload} />
                ))}
              </ul>
            )}
          </Section>
          <Section
            title={`Tools (${catalog.data.tools.length})`}
            actions={
              <div className="toolbar">
                <label htmlFor="tool-filter">Filter</label>
                <input
                  id="tool-filter"
                  type="search"
                  value={filter}
                  placeholder="id, title or risk"
                  onChange={(event) => {
                    setFilter(event.target.value);
                    setShown(PAGE);
                  }}
                />
                <button type="button" onClick={catalog.reload}>
                  Refresh
                </button>
              </div>
            }
          >
            {words.length > 0 && (
              <p className="small muted" aria-live="polite">
                {matching.length} of {catalog.data.tools.length} match
              </p>
            )}
            <table>
              <TableHead columns={['Tool', 'Risk', 'Versions', 'Breaker', 'Health']} />
              <tbody>
                {matching.slice(0, shown).map((tool) => {
                  const version = tool.activeVersion ?? tool.versions[0]?.version;
                  const report = health.get(`${tool.id}@${version}`);
                  return (
                    <tr key={tool.id}>
                      <td>
                        <code>{tool.id}</code>
                        <div className="muted small">{tool.title}</div>
                      </td>
                      <td>
                        {tool.risk}
                        {tool.requiresApproval ? ' · needs approval' : ''}
                      </td>
                      <td>
                        {tool.versions.map((version) => (
                          <div key={version.version} title={version.stateReason ?? undefined}>
                            {version.version} <Badge value={version.state} />
                            {version.version === tool.activeVersion ? ' active' : ''}
                            {!version.loaded ? ' · not loaded' : ''}
                          </div>
                        ))}
                      </td>
                      <td>{report?.breaker ? <Breaker report={report} /> : <span className="muted">not called yet</span>}</td>
                      <td>{report?.health ? <Badge value={report.health.healthy ? 'healthy' : 'unhealthy'} /> : <span className="muted">no check</span>}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
            {matching.length > shown && (
              <button type="button" onClick={() => setShown((n) => n + PAGE)}>
                Show {Math.min(PAGE, matching.length - shown)} more of {matching.length - shown}
              </button>
            )}
          </Section>
        </>
      )}
    </>
  );
}

function Breaker({ report }: { report: ToolHealthReport }) {
  const breaker = report.breaker;
  if (!breaker) return null;
  return (
    <div>
      <Badge value={breaker.state} />{' '}
      <span className="small">
        {breaker.failures} failed · {breaker.inFlight}/{breaker.tenantLimit} in flight
      </span>
      {breaker.lastFailure && (
        <div className="small muted">
          last: {breaker.lastFailure.code} at {formatTime(breaker.lastFailure.at)}
        </div>
      )}
    </div>
  );
}

function ApprovalCard({ tool, version, onDecided }: { tool: CatalogTool; version: ToolVersion; onDecided: () => void }) {
  const { me } = useSession();
  const { send, busy, error } = useMutation(onDecided);
  const hash = awaitingHash(version) as string;
  const approve = () => send(APPROVE_VERSION, { input: { toolId: tool.id, version: version.version, descriptorHash: hash } });
  return (
    <li className="card">
      <h3>
        <code>
          {tool.id}@{version.version}
        </code>{' '}
        <Badge value={version.state} />
      </h3>
      <p>{version.stateReason ?? 'A changed descriptor was loaded for this version.'}</p>
      <p className="small">
        Descriptor <code title={hash}>{hash.slice(0, 16)}…</code> from {version.packageName}
      </p>
      {version.integrityFindings.length > 0 && (
        <ul className="findings" aria-label="Integrity findings">
          {version.integrityFindings.map((finding) => (
            <li key={`${finding.path}:${finding.rule}`}>
              <code>{finding.path}</code> {finding.rule}: {finding.message}
            </li>
          ))}
        </ul>
      )}
      <button type="button" onClick={() => void approve()} disabled={busy} aria-describedby={me.admin ? undefined : `approve-note-${tool.id}`}>
        Approve this descriptor
      </button>
      {!me.admin && (
        <span id={`approve-note-${tool.id}`} className="small muted">
          {' '}
          needs a platform admin
        </span>
      )}
      <ErrorNote error={error} />
    </li>
  );
}
