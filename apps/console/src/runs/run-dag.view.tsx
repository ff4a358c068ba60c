import { Background, Controls, type Edge, Handle, type Node, type NodeProps, Position, ReactFlow, useNodesState } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useEffect, useMemo } from 'react';
import type { RunStep, StepStatus } from '../api/console.queries';
import { Badge, formatMs } from '../app/shared.view';

type StepNode = Node<{ step: RunStep; status: StepStatus }, 'step'>;

const COLUMN = 260;
const ROW = 110;

/** Column = longest dependency chain before the step, so every edge points right. */
function layout(steps: RunStep[]): Map<string, { x: number; y: number }> {
  const byId = new Map(steps.map((s) => [s.id, s]));
  const depth = new Map<string, number>();
  const depthOf = (id: string, seen: Set<string>): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    if (seen.has(id)) return 0;
    seen.add(id);
    const parents = byId.get(id)?.dependsOn.filter((p) => byId.has(p)) ?? [];
    const value = parents.length === 0 ? 0 : 1 + Math.max(...parents.map((p) => depthOf(p, seen)));
    depth.set(id, value);
    return value;
  };
  const rows = new Map<number, number>();
  const positions = new Map<string, { x: number; y: number }>();
  for (const step of steps) {
    const column = depthOf(step.id, new Set());
    const row = rows.get(column) ?? 0;
    rows.set(column, row + 1);
    positions.set(step.id, { x: column * COLUMN, y: row * ROW });
  }
  return positions;
}

function StepCard({ data }: NodeProps<StepNode>) {
  const { step, status } = data;
  return (
    <div className={`dag-node ${status.toLowerCase()}`} data-step={step.id} data-status={status}>
      <Handle type="target" position={Position.Left} />
      <div className="dag-title">
        <strong>{step.id}</strong> <Badge value={status} />
      </div>
      <div className="small">
        <code>{step.tool}</code>
      </div>
      <div className="small muted">
        {step.attempts} attempt{step.attempts === 1 ? '' : 's'} · {formatMs(step.startedAt ? step.durationMs : null)}
        {step.error ? ` · ${step.error.code}` : ''}
      </div>
      <Handle type="source" position={Position.Right} />
    </div>
  );
}

const NODE_TYPES = { step: StepCard };

/** The run's plan as a graph; `statuses` carries live step states from runEvents ahead of a reload. */
export function RunDag({ steps, statuses }: { steps: RunStep[]; statuses: Record<string, StepStatus> }) {
  // Nodes live in React Flow's state so the sizes it measured survive a status change (a node it has not measured stays hidden).
  const [nodes, setNodes, onNodesChange] = useNodesState<StepNode>([]);
  useEffect(() => {
    const positions = layout(steps);
    setNodes((previous) => {
      const known = new Map(previous.map((node) => [node.id, node]));
      return steps.map((step) => ({
        ...known.get(step.id),
        id: step.id,
        type: 'step' as const,
        position: positions.get(step.id) ?? { x: 0, y: 0 },
        data: { step, status: statuses[step.id] ?? step.status },
        draggable: false,
        connectable: false,
      }));
    });
  }, [steps, statuses, setNodes]);
  const edges = useMemo<Edge[]>(
    () => steps.flatMap((step) => step.dependsOn.map((parent) => ({ id: `${parent}->${step.id}`, source: parent, target: step.id, animated: (statuses[step.id] ?? step.status) === 'RUNNING' }))),
    [steps, statuses],
  );
  return (
    <figure className="dag" aria-label={`Plan graph: ${steps.map((s) => `${s.id} ${statuses[s.id] ?? s.status}`).join(', ')}`}>
      <ReactFlow
        nodes={nodes}
        edges={edges}
        onNodesChange={onNodesChange}
        nodeTypes={NODE_TYPES}
        fitView
        fitViewOptions={{ maxZoom: 1.2 }}
        nodesConnectable={false}
        elementsSelectable={false}
        proOptions={{ hideAttribution: true }}
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </figure>
  );
}
