/**
 * The real `generateChunk` actor of the dataset machine: the hosted chat completion (a Query
 * mutation of the app's QueryClient, both loaded on the first hosted request) or the in-browser model. Wired by the composition root.
 */
import type { QueryClient } from '@tanstack/react-query';
import { fromPromise } from 'xstate';
import type { GenerateChunkInput, GenerateChunkOutput } from '../machines/datasetMachine';
import { DatasetFailure, redactSecrets } from '../shared/dataset/errors';
import type { HostedChatOptions } from './hosted-chat';
import { errorMessage } from '../shared/errors';

/** Runs the prompt on the in-browser model; `onText` gets the whole reply so far. */
export type GenerateLocal = (
  prompt: string,
  signal: AbortSignal,
  onText: (textSoFar: string) => void,
) => Promise<string>;

/** What the panel knows at the time of a request: the token as typed, the local model if loaded. */
export interface ChunkSources {
  /** The access token (memory only); read at each request. */
  getToken: () => string;
  generateLocal?: GenerateLocal | undefined;
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
    const message = errorMessage(error);
    throw new DatasetFailure('local', `The local model failed: ${redactSecrets(message)}`);
  }
}

/** `sources` is read when a chunk starts, so the actor can be created once. */
export function createGenerateChunk(
  loadQueryClient: () => Promise<QueryClient>,
  sources: () => ChunkSources,
  hostedOptions?: HostedChatOptions,
) {
  return fromPromise<GenerateChunkOutput, GenerateChunkInput>(async ({ input, signal }) => {
    const current = sources();
    if (input.source === 'local')
      return { text: await runLocal(current.generateLocal, input, signal) };
    // The hosted-model client is loaded on first use, not with the panels.
    const [{ runHostedChat }, queryClient] = await Promise.all([
      import('./hosted-chat'),
      loadQueryClient(),
    ]);
    const text = await runHostedChat(
      queryClient,
      {
        token: current.getToken(),
        prompt: input.prompt,
        pairs: input.pairs,
        signal,
        onText: input.onText,
      },
      hostedOptions,
    );
    return { text };
  });
}
