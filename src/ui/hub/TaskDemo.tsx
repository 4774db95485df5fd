import type { TaskDemo, TaskDemoEntry } from '@huggingface/tasks';

/** Where the Hub keeps the demo files of the task pages. */
const ASSETS = 'https://huggingface.co/datasets/huggingfacejs/tasks/resolve/main';

type Entry<T extends TaskDemoEntry['type']> = Extract<TaskDemoEntry, { type: T }>;

function TextWithTokens({ entry }: { entry: Entry<'text-with-tokens'> }) {
  const parts: Array<{ text: string; type?: string }> = [];
  let at = 0;
  for (const token of [...entry.tokens].sort((a, b) => a.start - b.start)) {
    if (token.start < at) continue; // overlapping spans: keep the first
    if (token.start > at) parts.push({ text: entry.text.slice(at, token.start) });
    parts.push({ text: entry.text.slice(token.start, token.end), type: token.type });
    at = token.end;
  }
  if (at < entry.text.length) parts.push({ text: entry.text.slice(at) });
  return (
    <p className="hub-demo-tokens">
      {parts.map((part, i) =>
        part.type ? (
          <mark key={i} title={part.type}>
            {part.text}
            <span className="hub-token-type">{part.type}</span>
          </mark>
        ) : (
          <span key={i}>{part.text}</span>
        ),
      )}
    </p>
  );
}

function Chart({ entry }: { entry: Entry<'chart'> }) {
  return (
    <ul className="hub-demo-chart" aria-label="Scores">
      {entry.data.map((d) => (
        <li key={d.label}>
          <span className="hub-chart-label">{d.label}</span>
          <span className="hub-chart-bar" aria-hidden="true">
            <span style={{ width: `${Math.max(0, Math.min(1, d.score)) * 100}%` }} />
          </span>
          <span className="hub-chart-score">{d.score.toFixed(3)}</span>
        </li>
      ))}
    </ul>
  );
}

function Table({ entry }: { entry: Entry<'tabular'> }) {
  const [head = [], ...rows] = entry.table;
  return (
    <table className="hub-demo-table">
      <thead>
        <tr>
          {head.map((cell, i) => (
            <th key={i} scope="col">
              {cell}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, r) => (
          <tr key={r}>
            {row.map((cell, c) => (
              <td key={c}>{cell}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function DemoEntry({
  taskId,
  entry,
  side,
}: {
  taskId: string;
  entry: TaskDemoEntry;
  side: string;
}) {
  switch (entry.type) {
    case 'text':
      return (
        <figure className="hub-demo-text">
          <figcaption>{entry.label}</figcaption>
          <p>{entry.content}</p>
        </figure>
      );
    case 'img':
      return (
        <figure>
          <img
            src={`${ASSETS}/${taskId}/${entry.filename}`}
            alt={`${side} image (${entry.filename})`}
            loading="lazy"
          />
          <figcaption>{entry.filename}</figcaption>
        </figure>
      );
    case 'audio':
      return (
        <figure>
          <audio
            controls
            preload="none"
            src={`${ASSETS}/${taskId}/${entry.filename}`}
            aria-label={`${side} audio (${entry.filename})`}
          />
          <figcaption>{entry.filename}</figcaption>
        </figure>
      );
    case 'chart':
      return <Chart entry={entry} />;
    case 'tabular':
      return <Table entry={entry} />;
    case 'text-with-tokens':
      return <TextWithTokens entry={entry} />;
  }
}

/** A task's demo, inputs then outputs, each entry rendered by its type. */
export function TaskDemoView({ taskId, demo }: { taskId: string; demo: TaskDemo }) {
  if (demo.inputs.length === 0 && demo.outputs.length === 0) return null;
  return (
    <section className="hub-demo">
      <h4>Demo</h4>
      <div className="hub-demo-columns">
        {(['inputs', 'outputs'] as const).map((side) => (
          <div key={side}>
            <h5>{side === 'inputs' ? 'Inputs' : 'Outputs'}</h5>
            {demo[side].map((entry, i) => (
              <DemoEntry
                key={i}
                taskId={taskId}
                entry={entry}
                side={side === 'inputs' ? 'Input' : 'Output'}
              />
            ))}
          </div>
        ))}
      </div>
    </section>
  );
}
