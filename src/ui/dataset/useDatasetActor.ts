import { useEffect, useRef, useState } from 'react';
import { useActorRef } from '@xstate/react';
import { inspect } from '../../inspection/bus';
import { useQueryClient } from '@tanstack/react-query';
import { fromPromise } from 'xstate';
import {
  datasetMachine,
  type DatasetInput,
  type GenerateChunkInput,
  type GenerateChunkOutput,
} from '../../machines/datasetMachine';
import { runHostedChat, type HostedChatOptions } from '../../actors/hosted-chat';
import { DatasetFailure, redactSecrets } from '../../shared/dataset/errors';

/** Runs the prompt on the in-browser model; `onText` gets the whole reply so far. */
export type GenerateLocal = (
  prompt: string,
  signal: AbortSignal,
  onText: (textSoFar: string) => void,
) => Promise<string>;

export interface DatasetActorDeps {
  /** The access token as typed (memory only); read at each request. */
  getToken: () => string;
  generateLocal?: GenerateLocal | undefined;
  hostedOptions?: HostedChatOptions | undefined;
  machineInput?: DatasetInput | undefined;
}

async function runLocal(
  generate: GenerateLocal | undefined,
  input: GenerateChunkInput,
  signal: AbortSignal,
): Promise<string> {
  if (!generate) throw new DatasetFailure('local', 'No local model is loaded: load one first.');
  try {
    return await generate(input.prompt, signal, input.onText);
  } catch (error) {
    if (error instanceof DatasetFailure) throw error;
    if (signal.aborted) throw new DatasetFailure('cancelled', 'Generation cancelled.');
    const message = error instanceof Error ? error.message : String(error);
    throw new DatasetFailure('local', `The local model failed: ${redactSecrets(message)}`);
  }
}

/**
 * The panel's own dataset actor, with `generateChunk` provided here (the edge): the hosted chat
 * completion as a TanStack Query mutation of the app's QueryClient, or the in-browser model.
 * Dependencies are read through refs, so the actor is created once.
 */
export function useDatasetActor(deps: DatasetActorDeps) {
  const queryClient = useQueryClient();
  const depsRef = useRef(deps);
  useEffect(() => {
    depsRef.current = deps;
  });
  // The ref is read when a chunk is generated (after render), never during render.
  // eslint-disable-next-line react-hooks/refs
  const [logic] = useState(() =>
    datasetMachine.provide({
      actors: {
        generateChunk: fromPromise<GenerateChunkOutput, GenerateChunkInput>(
          async ({ input, signal }) => {
            const current = depsRef.current;
            if (input.source === 'local')
              return { text: await runLocal(current.generateLocal, input, signal) };
            const text = await runHostedChat(
              queryClient,
              {
                token: current.getToken(),
                prompt: input.prompt,
                pairs: input.pairs,
                signal,
                onText: input.onText,
              },
              current.hostedOptions,
            );
            return { text };
          },
        ),
      },
    }),
  );
  return useActorRef(logic, { input: deps.machineInput ?? {}, inspect });
}
