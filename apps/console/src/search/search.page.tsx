import { type FormEvent, useState } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { SEARCH_FUNNEL, type SearchFunnel } from '../api/console.queries';
import { Badge, ErrorNote, Section, TableHead } from '../app/shared.view';
import { useQuery } from '../app/use-query.hook';

interface SearchImage {
  mimeType: string;
  dataBase64: string;
  name: string;
}

const readImage = (file: File): Promise<SearchImage> =>
  new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve({ mimeType: file.type || 'application/octet-stream', dataBase64: String(reader.result).replace(/^data:[^,]*,/, ''), name: file.name });
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });

const score = (value: number | null, digits: number) => (value === null ? '—' : value.toFixed(digits));
const rank = (value: number | null) => (value === null ? '—' : `#${value}`);

export function SearchPage() {
  const [text, setText] = useState('');
  const [k, setK] = useState(5);
  const [image, setImage] = useState<SearchImage | null>(null);
  const [input, setInput] = useState<Record<string, unknown> | null>(null);
  const funnel = useQuery<{ searchFunnel: SearchFunnel }>(SEARCH_FUNNEL, input && { input });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setInput({ query: text, k, ...(image ? { images: [image] } : {}) });
  };
  const result = funnel.data?.searchFunnel;
  const chart = (result?.candidates ?? []).map((c) => ({ name: c.toolId, kept: c.kept ? c.fusedScore : 0, dropped: c.kept ? 0 : c.fusedScore }));

  return (
    <>
      <h1>Search playground</h1>
      <form className="search-form" onSubmit={submit}>
        <label htmlFor="query">Task</label>
        <input id="query" type="search" value={text} onChange={(event) => setText(event.target.value)} placeholder="e.g. convert 5 miles to kilometers" />
        <label htmlFor="k">Top k</label>
        <input id="k" type="number" min={1} max={50} value={k} onChange={(event) => setK(Number(event.target.value))} />
        <label htmlFor="image">Image (optional)</label>
        <input id="image" type="file" accept="image/*" onChange={async (event) => setImage(event.target.files?.[0] ? await readImage(event.target.files[0]) : null)} />
        <button type="submit" disabled={!text.trim() && !image}>
          Search
        </button>
      </form>
      <ErrorNote error={funnel.error} />
      {funnel.loading && <p>Searching…</p>}
      {result && (
        <>
          {result.degraded && <p className="warn-note">Degraded while the index warms up: {result.degraded}</p>}
          {result.images.length > 0 && (
            <Section title="Text from the images">
              <ul>
                {result.images.map((img) => (
                  <li key={img.index}>
                    {img.name ?? `image ${img.index + 1}`} ({img.source}): <q>{img.text}</q>
                  </li>
                ))}
              </ul>
            </Section>
          )}
          <Section title={`Candidates for “${result.query}” (kept ${result.candidates.filter((c) => c.kept).length} of ${result.candidates.length}, k = ${result.k})`}>
            {result.candidates.length === 0 ? (
              <p>No tool you may discover matched.</p>
            ) : (
              <table>
                <TableHead columns={['Rank', 'Tool', 'BM25', 'Vector', 'Fused (RRF)', 'Rerank', 'Verdict']} />
                <tbody>
                  {result.candidates.map((c) => (
                    <tr key={`${c.toolId}@${c.version}`} className={c.kept ? '' : 'dropped'}>
                      <td>{rank(c.rank)}</td>
                      <td>
                        <code>
                          {c.toolId}@{c.version}
                        </code>
                        <div className="small muted">{c.title}</div>
                        {c.clause && <div className="small">clause: “{c.clause}”</div>}
                      </td>
                      <td>
                        {rank(c.bm25Rank)} <span className="small">{score(c.bm25Score, 2)}</span>
                        {c.matchedTerms.length > 0 && <div className="small muted">{c.matchedTerms.join(', ')}</div>}
                      </td>
                      <td>
                        {rank(c.vectorRank)} <span className="small">{score(c.vectorScore, 3)}</span>
                      </td>
                      <td>{c.fusedScore.toFixed(4)}</td>
                      <td>
                        {rank(c.rerankRank)} <span className="small">{score(c.rerankScore, 3)}</span>
                      </td>
                      <td>
                        <Badge value={c.verdict} tone={c.kept ? 'good' : 'muted'} />
                        <div className="small">{c.reason}</div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </Section>
          {chart.length > 0 && (
            <Section title="Fused score by candidate">
              <div className="chart" role="img" aria-label="Bar chart of each candidate's fused score, kept and dropped">
                <ResponsiveContainer width="100%" height={260}>
                  <BarChart data={chart} margin={{ left: 8, right: 8 }}>
                    <CartesianGrid strokeDasharray="3 3" />
                    <XAxis dataKey="name" tick={{ fontSize: 11 }} interval={0} angle={-20} textAnchor="end" height={60} />
                    <YAxis tickFormatter={(value: number) => value.toFixed(3)} />
                    <Tooltip />
                    <Legend />
                    <Bar dataKey="kept" name="kept" stackId="score" fill="#2f7d4f" isAnimationActive={false} />
                    <Bar dataKey="dropped" name="dropped" stackId="score" fill="#9a9a9a" isAnimationActive={false} />
                  </BarChart>
                </ResponsiveContainer>
              </div>
            </Section>
          )}
        </>
      )}
    </>
  );
}
