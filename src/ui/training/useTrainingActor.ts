/**
 * The panel's own training actor (a root, like the dataset actor), with the HTTP actors provided
 * here at the edge through the app's QueryClient. Nothing is kept in the page: on load the
 * machine asks the service which run is active and attaches to it.
 */
import { useState } from 'react';
import { useActorRef } from '@xstate/react';
import { useQueryClient } from '@tanstack/react-query';
import {
  createTrainingActors,
  createTrainingClient,
  type TrainingClient,
} from '../../actors/training-client';
import { trainingMachine } from '../../machines/trainingMachine';
import { inspect } from '../../inspection/bus';

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
  const actorRef = useActorRef(logic, { input: {}, inspect });
  return { actorRef, client };
}
