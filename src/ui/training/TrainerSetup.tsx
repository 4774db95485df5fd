/**
 * The trainer's set-up, offered when its Python packages are missing: **Set up the trainer**
 * (POST /trainer/setup, the same install as `npm run trainer:setup`) and that set-up's output as
 * it runs (GET /trainer/setup every second, wrapped inside its box; folded away once it
 * succeeded), then what the trainer has now. Server state through TanStack Query, in a chunk
 * loaded only when the set-up is needed.
 */
import { useEffect, useId, useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { trainingKeys } from '../../shared/training-keys';
import type { TrainerInfo, TrainerSetup as SetupState } from '../../shared/training-api';
import { useServices } from '../services';

/** While the set-up runs, its output is read this often. */
const SETUP_POLL_MS = 1000;

export interface TrainerSetupProps {
  trainer: TrainerInfo;
  /** A run is active: the set-up would be refused. */
  busy: boolean;
  /** The set-up ended: what the trainer has now. */
  onChanged: (trainer: TrainerInfo) => void;
}

function statusText(state: SetupState['state']): string {
  if (state === 'running') return 'Setting up the trainer…';
  if (state === 'succeeded') return 'The trainer is set up.';
  return '';
}

/** pip's output, wrapped inside its box: a long line never widens the page. */
function SetupLog({ lines }: { lines: readonly string[] }) {
  return (
    <pre className="trainer-setup-log" tabIndex={0} aria-label="Set-up output">
      {lines.slice(-200).join('\n')}
    </pre>
  );
}

export default function TrainerSetup({ trainer, busy, onChanged }: TrainerSetupProps) {
  const services = useServices();
  const id = useId();
  // Started here, or found going or ended (another tab): its output is read.
  const [started, setStarted] = useState(trainer.setup.state !== 'idle');
  const setup = useQuery({
    queryKey: trainingKeys.trainerSetup(services.trainingUrl),
    queryFn: ({ signal }) => services.trainer.setup(signal),
    enabled: started,
    initialData: trainer.setup.state === 'idle' ? undefined : trainer.setup,
    retry: false,
    refetchInterval: (query) => (query.state.data?.state === 'running' ? SETUP_POLL_MS : false),
  });
  const start = useMutation({
    mutationFn: () => services.trainer.startSetup(),
    onSuccess: () => setStarted(true),
  });
  const state = setup.data;
  const ended = state?.state === 'succeeded' || state?.state === 'failed';
  useEffect(() => {
    if (!ended) return;
    const controller = new AbortController();
    services.trainer
      .info(controller.signal)
      .then(onChanged)
      .catch(() => undefined); // the line keeps what it knew; a reload asks again
    return () => controller.abort();
  }, [ended, services, onChanged]);
  const running = state?.state === 'running' || start.isPending;

  return (
    <div className="trainer-setup">
      {trainer.missing.length > 0 && (
        <div role="alert">
          <p>
            <strong>The trainer is not set up:</strong> its Python packages{' '}
            {trainer.missing.join(', ')} {trainer.missing.length === 1 ? 'is' : 'are'} missing
            {trainer.python ? ` (interpreter ${trainer.python})` : ''}. Set-up installs them into
            the project&apos;s <code>.venv</code> (a few minutes; about 1–3 GB).
          </p>
          <button
            type="button"
            onClick={() => start.mutate()}
            disabled={running || busy}
            aria-describedby={busy ? `${id}-busy` : undefined}
          >
            {running ? 'Setting up the trainer…' : 'Set up the trainer'}
          </button>
          {busy && (
            <p id={`${id}-busy`} className="training-hint">
              Wait for the run to end first.
            </p>
          )}
        </div>
      )}
      {start.error && (
        <p className="training-failed" role="alert">
          The set-up did not start: {start.error.message}
        </p>
      )}
      {state && state.state !== 'idle' && (
        <>
          <p role="status">{statusText(state.state)}</p>
          {state.state === 'failed' && (
            <p className="training-failed" role="alert">
              <strong>The set-up failed.</strong> {state.error}
            </p>
          )}
          {state.lines.length > 0 &&
            (state.state === 'succeeded' ? (
              // Done: the output folds away, still there for whoever wants to read it.
              <details className="trainer-setup-output">
                <summary>Set-up output ({state.lines.length} lines)</summary>
                <SetupLog lines={state.lines} />
              </details>
            ) : (
              <SetupLog lines={state.lines} />
            ))}
        </>
      )}
    </div>
  );
}
