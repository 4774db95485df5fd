import { useEffect, useRef, useState } from 'react';
import { useActorRef } from '@xstate/react';
import { inspect } from '../../inspection/bus';
import { useServices, type ChunkSources } from '../services';

/**
 * The panel's own dataset actor, its logic from the services of the composition root (the hosted
 * chat completion or the in-browser model). The token and local generator are read through a
 * ref when a chunk starts, so the actor is created once.
 */
export function useDatasetActor(sources: ChunkSources) {
  const { datasetLogic } = useServices();
  const sourcesRef = useRef(sources);
  useEffect(() => {
    sourcesRef.current = sources;
  });
  // The ref is read when a chunk is generated (after render), never during render.
  // eslint-disable-next-line react-hooks/refs
  const [logic] = useState(() => datasetLogic(() => sourcesRef.current));
  return useActorRef(logic, { input: {}, inspect });
}
