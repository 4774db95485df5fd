import { memo, useEffect, useRef, useState } from 'react';
import type { StateValue } from 'xstate';
import { formatStateValue } from '../../inspection/actor-tree';
import type { LogEntry } from '../../inspection/store';

const SHOWN = 200;

function seconds(ms: number) {
  return (ms / 1000).toFixed(3);
}

/**
 * One row. Rows are updated in place while their run grows, so what changes (count, last time,
 * state) is passed as props for `memo` to compare: only the growing row re-renders per frame.
 */
const Row = memo(function Row({
  entry: e,
  count,
  lastTime,
  state,
}: {
  entry: LogEntry;
  count: number;
  lastTime: number;
  state: StateValue | undefined;
}) {
  return (
    <tr data-event={e.type}>
      <td>{seconds(lastTime)}</td>
      <td>
        {e.key}
        {count > 1 && (
          <span className="insp-count" title={`${count} events since ${seconds(e.time)} s`}>
            ×{count}
          </span>
        )}
      </td>
      <td>
        {e.source ?? '—'} → {e.target}
      </td>
      <td>{formatStateValue(state)}</td>
      <td className="insp-payload">{e.summary}</td>
    </tr>
  );
});

/** The time-ordered event log: filterable, high-frequency events collapsed into counts. */
export function EventLog({
  entries,
  total,
  selectedSession,
  onClear,
}: {
  entries: readonly LogEntry[];
  total: number;
  selectedSession: string | null;
  onClear: () => void;
}) {
  const [filter, setFilter] = useState('');
  const [onlySelected, setOnlySelected] = useState(false);
  const scroller = useRef<HTMLDivElement>(null);
  const needle = filter.trim().toLowerCase();
  const shown = entries
    .filter((e) => !onlySelected || e.targetSession === selectedSession)
    .filter(
      (e) =>
        !needle ||
        e.type.toLowerCase().includes(needle) ||
        e.target.toLowerCase().includes(needle) ||
        (e.source ?? '').toLowerCase().includes(needle) ||
        e.summary.toLowerCase().includes(needle),
    )
    .slice(-SHOWN);
  const last = shown.at(-1);
  const lastKey = last ? `${last.seq}:${last.count}` : '';
  // Follow the newest row unless the user scrolled up to read.
  const following = useRef(true);
  useEffect(() => {
    const el = scroller.current;
    if (el && following.current) el.scrollTop = el.scrollHeight;
  }, [lastKey]);
  return (
    <section className="insp-log" aria-label="Event log">
      <div className="insp-toolbar">
        <label>
          Filter{' '}
          <input
            type="search"
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
            placeholder="event or actor"
          />
        </label>
        <label>
          <input
            type="checkbox"
            checked={onlySelected}
            onChange={(e) => setOnlySelected(e.target.checked)}
          />{' '}
          Selected actor only
        </label>
        <span className="insp-muted">{total} events</span>
        <button type="button" onClick={onClear}>
          Clear
        </button>
      </div>
      <div
        className="insp-log-scroll"
        ref={scroller}
        tabIndex={0}
        aria-label="Events"
        onScroll={(e) => {
          const el = e.currentTarget;
          following.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
        }}
      >
        <table>
          <thead>
            <tr>
              <th scope="col">Time (s)</th>
              <th scope="col">Event</th>
              <th scope="col">Source → target</th>
              <th scope="col">State after</th>
              <th scope="col">Payload</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((e) => (
              <Row key={e.seq} entry={e} count={e.count} lastTime={e.lastTime} state={e.state} />
            ))}
          </tbody>
        </table>
        {shown.length === 0 && <p className="insp-muted">No events yet.</p>}
      </div>
    </section>
  );
}
