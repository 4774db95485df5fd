import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise, waitFor } from 'xstate';
import { appMachine, type GpuInfo } from '../machines/appMachine';
import { createLocalGenerator } from './local-generator';
import type { WorkerActorEvent, WorkerResponse } from '../shared/worker-protocol';
import { MODELS } from '../shared/models';

function setup() {
  const posted: WorkerActorEvent[] = [];
  let emit: (m: WorkerResponse) => void = () => {};
  const actor = createActor(
    appMachine.provide({
      actors: {
        probeWebGPU: fromPromise<GpuInfo>(async () => ({ supported: true, shaderF16: true })),
        llmWorker: fromCallback<WorkerActorEvent>(({ receive, sendBack }) => {
          emit = (message) => sendBack({ type: 'worker.message', message });
          receive((r) => void posted.push(r));
        }),
      },
    }),
    { input: { models: MODELS } },
  ).start();
  return { actor, posted, emit: (m: WorkerResponse) => emit(m) };
}

describe('createLocalGenerator', () => {
  it('resolves with the streamed answer text, reporting progress', async () => {
    const { actor, emit } = setup();
    await waitFor(actor, (s) => s.matches('supported'));
    const progress: string[] = [];
    const p = createLocalGenerator(actor)('prompt', new AbortController().signal, (t) =>
      progress.push(t),
    );
    emit({ status: 'start', purpose: 'dataset' });
    emit({
      status: 'update',
      output: 'think',
      numTokens: 1,
      channel: 'thinking',
      purpose: 'dataset',
    });
    emit({
      status: 'update',
      output: '[{"a"',
      numTokens: 2,
      channel: 'answer',
      purpose: 'dataset',
    });
    emit({ status: 'update', output: ':1}]', numTokens: 3, channel: 'answer', purpose: 'dataset' });
    emit({ status: 'complete', numTokens: 3, seconds: 1, interrupted: false, purpose: 'dataset' });
    await expect(p).resolves.toBe('[{"a":1}]');
    expect(progress).toEqual(['[{"a"', '[{"a":1}]']);
  });

  it('rejects with the worker message on error', async () => {
    const { actor, emit } = setup();
    await waitFor(actor, (s) => s.matches('supported'));
    const p = createLocalGenerator(actor)('prompt', new AbortController().signal, () => {});
    emit({ status: 'error', data: 'The model is busy', phase: 'generate', purpose: 'dataset' });
    await expect(p).rejects.toThrow('The model is busy');
  });

  it('abort interrupts the worker and rejects with AbortError', async () => {
    const { actor, posted } = setup();
    await waitFor(actor, (s) => s.matches('supported'));
    const controller = new AbortController();
    const p = createLocalGenerator(actor)('prompt', controller.signal, () => {});
    controller.abort();
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    expect(posted.at(-1)).toEqual({ type: 'interrupt' });
  });
});
