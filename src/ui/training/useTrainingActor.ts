/**
 * The panel's own training actor (a root, like the dataset actor), its logic (HTTP actors through
 * the app's QueryClient) from the composition root's services. The run being watched is kept in
 * localStorage so a reload picks it up again.
 */
import { useEffect, useState } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { useServices } from '../services';
import { selectIsBusy, selectRunToResume } from '../../machines/trainingMachine';
import { inspect } from '../../inspection/bus';

const RUN_KEY = 'training.run.v1';

function storage(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null; // storage disabled: nothing is kept across reloads
  }
}

function readStoredRunId(): string | null {
  return storage()?.getItem(RUN_KEY) ?? null;
}

export function useTrainingActor() {
  const { trainingLogic, trainingUrl } = useServices();
  const [logic] = useState(trainingLogic);
  const actorRef = useActorRef(logic, { input: { resumeRunId: readStoredRunId() }, inspect });

  const toResume = useSelector(actorRef, selectRunToResume);
  const busy = useSelector(actorRef, selectIsBusy);
  useEffect(() => {
    const store = storage();
    if (!store) return;
    if (toResume) store.setItem(RUN_KEY, toResume);
    else if (!busy) store.removeItem(RUN_KEY);
  }, [toResume, busy]);

  return { actorRef, trainingUrl };
}
