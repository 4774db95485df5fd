import { useState } from 'react';
import { actorLabel, isActorRef, type InspectedRef } from '../../inspection/actor-tree';
import { truncate } from '../../inspection/summarize';
import { isObject, isUnknownArray } from '../../shared/guards';

const MAX_ITEMS = 100;

interface NodeProps {
  name: string;
  value: unknown;
  level: number;
  onSelectActor: (ref: InspectedRef) => void;
}

function Leaf({ value, onSelectActor }: Omit<NodeProps, 'name' | 'level'>) {
  if (isActorRef(value))
    return (
      <button type="button" className="insp-link" onClick={() => onSelectActor(value)}>
        @{actorLabel(value)}
      </button>
    );
  if (typeof value === 'string')
    return <span className="insp-string">{JSON.stringify(truncate(value))}</span>;
  if (typeof value === 'function') return <span className="insp-muted">ƒ</span>;
  return <span className="insp-scalar">{String(value)}</span>;
}

function ValueNode({ name, value, level, onSelectActor }: NodeProps) {
  const [open, setOpen] = useState(level < 2);
  const expandable = isObject(value) && !isActorRef(value);
  if (!expandable)
    return (
      <li role="treeitem" aria-level={level} aria-selected={false} className="insp-ctx-item">
        <span className="insp-key">{name}:</span>{' '}
        <Leaf value={value} onSelectActor={onSelectActor} />
      </li>
    );
  const entries = isUnknownArray(value)
    ? value.map((v, i) => [String(i), v] as const)
    : Object.entries(value);
  const summary = isUnknownArray(value) ? `Array(${value.length})` : `{${entries.length}}`;
  return (
    <li
      role="treeitem"
      aria-level={level}
      aria-expanded={open}
      aria-selected={false}
      className="insp-ctx-item"
    >
      <button type="button" className="insp-toggle" onClick={() => setOpen((o) => !o)}>
        <span aria-hidden="true">{open ? '▾' : '▸'}</span> <span className="insp-key">{name}:</span>{' '}
        <span className="insp-muted">{summary}</span>
      </button>
      {open && (
        <ul role="group">
          {entries.slice(0, MAX_ITEMS).map(([k, v]) => (
            <ValueNode key={k} name={k} value={v} level={level + 1} onSelectActor={onSelectActor} />
          ))}
          {entries.length > MAX_ITEMS && (
            <li className="insp-muted">… {entries.length - MAX_ITEMS} more</li>
          )}
        </ul>
      )}
    </li>
  );
}

/** An actor's context as a collapsible tree; actor refs are links to those actors. */
export function ContextTree({
  context,
  onSelectActor,
}: {
  context: unknown;
  onSelectActor: (ref: InspectedRef) => void;
}) {
  if (context === undefined) return <p className="insp-muted">No context (not a machine).</p>;
  return (
    <ul role="tree" aria-label="Context" className="insp-ctx">
      <ValueNode name="context" value={context} level={1} onSelectActor={onSelectActor} />
    </ul>
  );
}
