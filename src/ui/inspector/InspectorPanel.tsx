/**
 * The state-machine inspector: the live actor tree, the selected actor's statechart with its
 * active states, its context and the event log. Loaded lazily (its own chunk, ELK in another);
 * it subscribes to the inspection bus only while mounted.
 */
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { createInspectorStore } from '../../inspection/store';
import { flattenTree, machineOf, snapshotOf, type InspectedRef } from '../../inspection/actor-tree';
import { ActorTreeView } from './ActorTreeView';
import { StateDiagram } from './StateDiagram';
import { ContextTree } from './ContextTree';
import { EventLog } from './EventLog';
import './inspector.css';

export default function InspectorPanel({ onClose }: { onClose: () => void }) {
  const [store] = useState(() => createInspectorStore());
  useSyncExternalStore(store.subscribe, store.getVersion);
  const [selected, setSelected] = useState<string | null>(null);
  const closeButton = useRef<HTMLButtonElement>(null);
  useEffect(() => closeButton.current?.focus(), []);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);

  const actors = flattenTree(store.getTree());
  const current = actors.find((a) => a.sessionId === selected) ?? actors[0] ?? null;
  const snapshot = current ? snapshotOf(current.ref) : null;
  const machine = current ? machineOf(current.ref) : null;
  const selectRef = (ref: InspectedRef) => setSelected(ref.sessionId);

  return (
    <aside className="insp-panel" aria-label="State machine inspector">
      <header className="insp-header">
        <h2>State machines</h2>
        <button type="button" ref={closeButton} onClick={onClose} aria-label="Close inspector">
          ×
        </button>
      </header>
      <div className="insp-body">
        <nav className="insp-side" aria-label="Actor tree">
          <h3>Actors</h3>
          <ActorTreeView
            actors={actors}
            selected={current?.sessionId ?? null}
            onSelect={setSelected}
          />
          <h3>Context{current ? ` of ${current.label}` : ''}</h3>
          {current && (
            <ContextTree
              key={current.sessionId}
              context={snapshot?.context}
              onSelectActor={selectRef}
            />
          )}
        </nav>
        <div className="insp-main">
          <section className="insp-chart" aria-label="Statechart">
            {machine ? (
              <StateDiagram machine={machine} value={snapshot?.value} />
            ) : (
              <p className="insp-muted">
                {current
                  ? `${current.label} is a ${current.logic} actor (no statechart): ${current.status}.`
                  : 'Select an actor.'}
              </p>
            )}
          </section>
          <EventLog
            entries={store.getLog()}
            total={store.getEventCount()}
            selectedSession={current?.sessionId ?? null}
            onClear={store.clearLog}
          />
        </div>
      </div>
    </aside>
  );
}
