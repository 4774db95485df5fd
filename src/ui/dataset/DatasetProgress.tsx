import type { ChunkProgress } from '../../machines/datasetSelectors';

const STATUS: Record<ChunkProgress['status'], string> = {
  pending: 'waiting',
  running: 'generating',
  done: 'done',
  failed: 'failed',
};

/** Progress while generating: per chunk, characters and pairs received so far. */
export function DatasetProgress({ progress }: { progress: readonly ChunkProgress[] }) {
  const done = progress.filter((p) => p.status === 'done').length;
  const chars = progress.reduce((n, p) => n + p.chars, 0);
  const pairs = progress.reduce((n, p) => n + p.pairs, 0);
  return (
    <div className="dataset-progress">
      <p role="status">
        Generating: {pairs} {pairs === 1 ? 'pair' : 'pairs'} so far ({chars.toLocaleString('en')}{' '}
        characters)
        {progress.length > 1 &&
          `, part ${Math.min(done + 1, progress.length)} of ${progress.length}`}
      </p>
      <progress aria-label="Parts done" max={progress.length} value={done} />
      {progress.length > 1 && (
        <ol className="dataset-chunks">
          {progress.map((p, i) => (
            <li key={i}>
              Part {i + 1}: {STATUS[p.status]}, {p.chars.toLocaleString('en')} characters, {p.pairs}{' '}
              of {p.pairsAsked} pairs
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
