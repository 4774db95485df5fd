/**
 * The panel's own training actor (a root, like the dataset actor), with the HTTP actors provided
 * here at the edge through the app's QueryClient. The run being watched is kept in localStorage
 * so a reload picks it up again.
 */
import { useEffect, useState } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { useQueryClient } from '@tanstack/react-query';
import {
  createTrainingActors,
  createTrainingClient,
  type TrainingClient,
} from '../../actors/training-client';
import { selectIsBusy, selectRunToResume, trainingMachine } from '../../machines/trainingMachine';
import { inspect } from '../../inspection/bus';

const RUN_KEY = 'training.run.v1';

function storage(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null; // storage disabled: nothing is kept across reloads
  }
}

export function readStoredRunId(): string | null {
  return storage()?.getItem(RUN_KEY) ?? null;
}

export interface TrainingActorOptions {
  /** The service client (tests, another URL); default from `?trainingUrl=` / env / :8000. */
  client?: TrainingClient;
  /** Poll interval override in ms (tests); default the machine's 2000. */
  pollInterval?: number;
}

export function useTrainingActor(options: TrainingActorOptions = {}) {
  const queryClient = useQueryClient();
  const [client] = useState(() => options.client ?? createTrainingClient());
  const [logic] = useState(() =>
    trainingMachine.provide({
      actors: createTrainingActors(queryClient, client),
      ...(options.pollInterval !== undefined
        ? { delays: { pollInterval: options.pollInterval } }
        : {}),
    }),
  );
  const actorRef = useActorRef(logic, { input: { resumeRunId: readStoredRunId() }, inspect });

  const toResume = useSelector(actorRef, selectRunToResume);
  const busy = useSelector(actorRef, selectIsBusy);
  useEffect(() => {
    const store = storage();
    if (!store) return;
    if (toResume) store.setItem(RUN_KEY, toResume);
    else if (!busy) store.removeItem(RUN_KEY);
  }, [toResume, busy]);

  return { actorRef, client };
}
