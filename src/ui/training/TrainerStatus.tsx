/**
 * The trainer on the service, in one line ("Trainer: torch 2.13 · CPU only"), a warning when the
 * base model is large for its device, and — when its Python packages are missing — what is
 * missing with **Set up the trainer** (POST /trainer/setup) and that set-up's output as it runs.
 * Server state through TanStack Query (its own chunk, loaded with Query after the first paint).
 */
import { useEffect, useId, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { trainingKeys } from '../../shared/training-keys';
import type { TrainerInfo, TrainingMethod } from '../../shared/training-api';
import { useServices } from '../services';
import { sizeWarning, trainerSummary } from './trainer-fit';

/** While the set-up runs, its output is read this often. */
const SETUP_POLL_MS = 1000;

export interface TrainerStatusProps {
  baseModel: string;
  method: TrainingMethod;
  /** A run is active: the set-up would be refused. */
  busy: boolean;
}

export default function TrainerStatus({ baseModel, method, busy }: TrainerStatusProps) {
  const { trainer, trainingUrl } = useServices();
  const queryClient = useQueryClient();
  const id = useId();
  const info = useQuery({
    queryKey: trainingKeys.trainer(trainingUrl),
    queryFn: ({ signal }) => trainer.info(signal),
    retry: false,
    staleTime: 30_000,
  });
  const running = info.data?.setup.state === 'running';
  // Started here, or found going or ended (another tab): its output is read.
  const [started, setStarted] = useState(false);
  const setup = useQuery({
    queryKey: trainingKeys.trainerSetup(trainingUrl),
    queryFn: ({ signal }) => trainer.setup(signal),
    enabled: started || (info.data !== undefined && info.data.setup.state !== 'idle'),
    initialData: info.data?.setup,
    retry: false,
    refetchInterval: (query) => (query.state.data?.state === 'running' ? SETUP_POLL_MS : false),
  });
  const start = useMutation({
    mutationFn: () => trainer.startSetup(),
    onSuccess: (state) => {
      queryClient.setQueryData(trainingKeys.trainerSetup(trainingUrl), state);
      setStarted(true);
    },
  });
  const setupState = setup.data ?? info.data?.setup;
  const settingUp = setupState?.state === 'running' || start.isPending || running;
  // Once the set-up ends, what the interpreter has changed: ask again.
  const ended = setupState?.state === 'succeeded' || setupState?.state === 'failed';
  const staleInfo = ended && info.data?.setup.state !== setupState.state;
  useEffect(() => {
    if (staleInfo)
      void queryClient.invalidateQueries({ queryKey: trainingKeys.trainer(trainingUrl) });
  }, [staleInfo, queryClient, trainingUrl]);

  if (info.isPending) return <p className="trainer-status">Trainer: checking…</p>;
  if (info.error)
    return (
      <p className="trainer-status training-hint">
        Trainer: unknown (the training service did not say: {info.error.message})
      </p>
    );
  const data: TrainerInfo = info.data;
  const warning = sizeWarning(data, baseModel, method);
  const logId = `${id}-setup-log`;
  return (
    <div className="trainer-status">
      {data.missing.length === 0 ? (
        <p title={data.python ?? undefined}>Trainer: {trainerSummary(data)}</p>
      ) : (
        <div role="alert">
          <p>
            <strong>The trainer is not set up:</strong> its Python packages{' '}
            {data.missing.join(', ')} {data.missing.length === 1 ? 'is' : 'are'} missing
            {data.python ? ` (interpreter ${data.python})` : ''}. Set-up installs them into the
            project&apos;s <code>.venv</code> (a few minutes; about 1–3 GB).
          </p>
          <button
            type="button"
            onClick={() => start.mutate()}
            disabled={settingUp || busy}
            aria-describedby={busy ? `${id}-busy` : undefined}
          >
            {settingUp ? 'Setting up the trainer…' : 'Set up the trainer'}
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
      {setupState && setupState.state !== 'idle' && (
        <div className="trainer-setup">
          <p role="status">
            {setupState.state === 'running'
              ? 'Setting up the trainer…'
              : setupState.state === 'succeeded'
                ? 'The trainer is set up.'
                : ''}
          </p>
          {setupState.state === 'failed' && (
            <p className="training-failed" role="alert">
              <strong>The set-up failed.</strong> {setupState.error}
            </p>
          )}
          {setupState.lines.length > 0 && (
            <pre className="trainer-setup-log" tabIndex={0} aria-label="Set-up output" id={logId}>
              {setupState.lines.slice(-200).join('\n')}
            </pre>
          )}
        </div>
      )}
      {warning && (
        <p className="training-warning" role="note">
          {warning}
        </p>
      )}
    </div>
  );
}
