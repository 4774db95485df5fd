import { useRef, type KeyboardEvent } from 'react';
import { formatStateValue, snapshotOf, type ActorNode } from '../../inspection/actor-tree';

/** The actor tree (roots, spawned and invoked actors) as a keyboard-navigable ARIA tree. */
export function ActorTreeView({
  actors,
  selected,
  onSelect,
}: {
  /** Flattened, in display order. */
  actors: readonly ActorNode[];
  selected: string | null;
  onSelect: (sessionId: string) => void;
}) {
  const list = useRef<HTMLUListElement>(null);
  const move = (event: KeyboardEvent, index: number) => {
    const last = actors.length - 1;
    const next =
      event.key === 'ArrowDown'
        ? Math.min(index + 1, last)
        : event.key === 'ArrowUp'
          ? Math.max(index - 1, 0)
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? last
              : null;
    if (next === null) return;
    event.preventDefault();
    const target = actors[next];
    if (!target) return;
    onSelect(target.sessionId);
    list.current?.querySelectorAll<HTMLElement>('[role="treeitem"]')[next]?.focus();
  };
  if (actors.length === 0)
    return <p className="insp-muted">No actors yet: the app passes the bus’s inspect option.</p>;
  return (
    <ul role="tree" aria-label="Actors" className="insp-actors" ref={list}>
      {actors.map((a, i) => {
        const value = snapshotOf(a.ref).value;
        const isSelected = a.sessionId === selected;
        return (
          <li
            key={a.sessionId}
            role="treeitem"
            aria-level={a.depth + 1}
            aria-selected={isSelected}
            tabIndex={isSelected ? 0 : -1}
            className={isSelected ? 'insp-actor insp-selected' : 'insp-actor'}
            style={{ paddingLeft: `${0.5 + a.depth}rem` }}
            onClick={() => onSelect(a.sessionId)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' || e.key === ' ') {
                e.preventDefault();
                onSelect(a.sessionId);
              } else move(e, i);
            }}
          >
            <span className="insp-actor-id">{a.label}</span>{' '}
            <span className="insp-muted">
              {a.kind === 'machine' ? `machine ${a.logic}` : a.logic} · {a.sessionId}
              {a.status !== 'active' ? ` · ${a.status}` : ''}
            </span>
            {value !== undefined && (
              <span className="insp-actor-state">{formatStateValue(value)}</span>
            )}
          </li>
        );
      })}
    </ul>
  );
}
