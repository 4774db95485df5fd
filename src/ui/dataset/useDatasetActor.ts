import { useCallback, useEffect, useRef, useState } from 'react';
import { createActor, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import { useSelector } from '@xstate/react';
import type { datasetMachine } from '../../machines/datasetMachine';
import type * as datasetSelectors from '../../machines/datasetSelectors';
import { inspect } from '../../inspection/bus';
import { useServices, type ChunkSources } from '../services';

export type DatasetActorRef = ActorRefFrom<typeof datasetMachine>;
export type DatasetSelectors = typeof datasetSelectors;

interface Engine {
  actor: DatasetActorRef;
  selectors: DatasetSelectors;
}

/**
 * The panel's own dataset actor, created on the first 'Format Input': its logic (the dataset
 * machine with the hosted chat completion or the in-browser model) comes from the composition
 * root's services and is loaded then, so none of it weighs on the first page load. The token and
 * local generator are read through a ref when a chunk starts, so the actor is created once.
 * `actor` and the machine's `selectors` (loaded with it) are undefined until then; the panel reads
 * them with `useSelector`, which accepts an undefined actor.
 */
export function useDatasetActor(sources: ChunkSources) {
  const { loadDatasetLogic } = useServices();
  const sourcesRef = useRef(sources);
  useEffect(() => {
    sourcesRef.current = sources;
  });
  const [engine, setEngine] = useState<Engine | undefined>();
  const pending = useRef<Promise<DatasetActorRef> | null>(null);
  const ensure = useCallback(() => {
    pending.current ??= Promise.all([
      loadDatasetLogic(() => sourcesRef.current),
      import('../../machines/datasetSelectors'),
    ]).then(([logic, selectors]) => {
      const actor = createActor(logic, { input: {}, inspect }).start();
      setEngine({ actor, selectors });
      return actor;
    });
    return pending.current.catch((error: unknown) => {
      pending.current = null;
      throw error;
    });
  }, [loadDatasetLogic]);
  useEffect(() => () => engine?.actor.stop(), [engine]);
  return { actor: engine?.actor, selectors: engine?.selectors, ensure };
}

/**
 * One value of the dataset actor's state, read with one of its selectors (`pick`), or `idle` until
 * the first 'Format Input' creates the actor.
 */
export function useDatasetSelector<T>(
  engine: { actor?: DatasetActorRef | undefined; selectors?: DatasetSelectors | undefined },
  pick: (selectors: DatasetSelectors) => (snapshot: SnapshotFrom<DatasetActorRef>) => T,
  idle: T,
): T {
  const { actor, selectors } = engine;
  return useSelector(actor, (s) => (s && selectors ? pick(selectors)(s) : idle));
}
