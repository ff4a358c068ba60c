import { parseExposition, summarize } from './metrics.summary';

const EXPOSITION = `# HELP toolgate_tool_calls_total Tool calls
# TYPE toolgate_tool_calls_total counter
toolgate_tool_calls_total{tool="units/convert",version="1.0.0",tenant="acme",outcome="succeeded",error_type=""} 18
toolgate_tool_calls_total{tool="units/convert",version="1.0.0",tenant="globex",outcome="tool_error",error_type="TIMEOUT"} 2
toolgate_tool_calls_total{tool="units/convert",version="1.0.0",tenant="acme",outcome="refused",error_type="CIRCUIT_OPEN"} 5
toolgate_tool_calls_total{tool="text/say",version="2.1.0",tenant="acme",outcome="caller_error",error_type="INVALID_ARGUMENTS"} 1
toolgate_tool_calls_total{tool="weird/\\"name\\"",version="1.0.0",tenant="a,b",outcome="succeeded",error_type=""} 1
toolgate_tool_retries_total{tool="units/convert",version="1.0.0"} 3
toolgate_breaker_state{tool="units/convert",version="1.0.0",tenant="acme"} 2
toolgate_breaker_state{tool="units/convert",version="1.0.0",tenant="globex"} 0
toolgate_tool_call_duration_seconds_bucket{le="0.1",tool="units/convert",version="1.0.0",outcome="succeeded"} 10
toolgate_tool_call_duration_seconds_bucket{le="0.5",tool="units/convert",version="1.0.0",outcome="succeeded"} 17
toolgate_tool_call_duration_seconds_bucket{le="1",tool="units/convert",version="1.0.0",outcome="succeeded"} 18
toolgate_tool_call_duration_seconds_bucket{le="+Inf",tool="units/convert",version="1.0.0",outcome="succeeded"} 18
toolgate_tool_call_duration_seconds_bucket{le="0.1",tool="units/convert",version="1.0.0",outcome="tool_error"} 0
toolgate_tool_call_duration_seconds_bucket{le="0.5",tool="units/convert",version="1.0.0",outcome="tool_error"} 0
toolgate_tool_call_duration_seconds_bucket{le="1",tool="units/convert",version="1.0.0",outcome="tool_error"} 0
toolgate_tool_call_duration_seconds_bucket{le="+Inf",tool="units/convert",version="1.0.0",outcome="tool_error"} 2
toolgate_runs_total{status="SUCCEEDED",tenant="acme"} 7
toolgate_runs_total{status="SUCCEEDED",tenant="globex"} 1
toolgate_runs_total{status="FAILED",tenant="acme"} 2
toolgate_approvals_pending{tenant="acme"} 1
toolgate_approvals_pending{tenant="globex"} 2
process_resident_memory_bytes 123456789
`;

describe('metrics summary (toolgate metrics)', () => {
  it('puts the p95 under the bucket bound that holds it when it is finite', () => {
    const buckets = [0.1, 0.5, 1].map((le, i) => `toolgate_search_stage_duration_seconds_bucket{le="${le}",stage="total",driver="embedded"} ${[50, 97, 100][i]}`);
    const summary = summarize(parseExposition([...buckets, 'toolgate_search_stage_duration_seconds_bucket{le="+Inf",stage="total",driver="embedded"} 100'].join('\n')));
    // 95 of 100 searches took at most 0.5 s.
    expect(summary.searchP95).toEqual({ seconds: 0.5, atLeast: false });
  });

  it('reads labels with escaped quotes and commas inside values', () => {
    const samples = parseExposition(EXPOSITION);
    expect(samples.find((s) => s.labels.tool === 'weird/"name"')?.labels).toEqual({ tool: 'weird/"name"', version: '1.0.0', tenant: 'a,b', outcome: 'succeeded', error_type: '' });
    expect(samples).toHaveLength(22);
  });

  it('sums tenants per tool version: failure rate over calls that reached the tool, the worst breaker, the p95 bucket', () => {
    const summary = summarize(parseExposition(EXPOSITION));
    const convert = summary.tools.find((t) => t.tool === 'units/convert@1.0.0');
    // 2 tool errors of 20 calls that reached it (the 5 refused never did): 10 %. Of 20 timed calls
    // the 19th (95 %) is past the last finite bucket: more than 1 s.
    expect(convert).toEqual({
      tool: 'units/convert@1.0.0',
      calls: 25,
      succeeded: 18,
      toolErrors: 2,
      refused: 5,
      callerErrors: 0,
      retries: 3,
      failureRate: 0.1,
      p95: { seconds: 1, atLeast: true },
      breaker: 'OPEN',
    });
    expect(summary.tools.find((t) => t.tool === 'text/say@2.1.0')).toMatchObject({ calls: 1, failureRate: 0, p95: null, breaker: 'CLOSED' });
    expect(summary.runs).toEqual({ SUCCEEDED: 8, FAILED: 2 });
    expect(summary.approvalsPending).toBe(3);
    expect(summary.residentMemoryBytes).toBe(123456789);
  });

  it('says nothing happened on an empty scrape', () => {
    expect(summarize(parseExposition(''))).toEqual({
      tools: [],
      runs: {},
      approvalsPending: 0,
      searches: 0,
      searchP95: null,
      indexDocuments: 0,
      vectorsPending: 0,
      residentMemoryBytes: null,
    });
  });
});
