import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise, waitFor } from 'xstate';
import { appMachine, type GpuInfo } from './appMachine';
import type { WorkerActorEvent, WorkerResponse } from '../shared/worker-protocol';
import { MODELS } from '../shared/models';
import type { EvaluationWorkerEvent } from './worker-events';
import { recorder } from './test-helpers';

/** A fake worker actor: records requests and lets the test emit responses. */
function fakeWorkerLogic() {
  const posted: WorkerActorEvent[] = [];
  let emit: (m: WorkerResponse) => void = () => {};
  const logic = fromCallback<WorkerActorEvent>(({ receive, sendBack }) => {
    emit = (message) => sendBack({ type: 'worker.message', message });
    receive((r) => void posted.push(r));
  });
  return { logic, posted, emit: (m: WorkerResponse) => emit(m) };
}

function start(gpu: GpuInfo | Error) {
  const worker = fakeWorkerLogic();
  const actor = createActor(
    appMachine.provide({
      actors: {
        probeWebGPU: fromPromise(async () => {
          if (gpu instanceof Error) throw gpu;
          return gpu;
        }),
        llmWorker: worker.logic,
      },
    }),
    { input: { models: MODELS } },
  ).start();
  return { actor, worker };
}

describe('appMachine', () => {
  it('checking → unsupported when the probe finds no adapter', async () => {
    const { actor, worker } = start({
      supported: false,
      shaderF16: false,
      reason: 'no WebGPU adapter',
    });
    await waitFor(actor, (s) => s.matches('unsupported'));
    expect(actor.getSnapshot().context.model).toBeNull();
    expect(worker.posted).toEqual([]);
  });

  it('checking → unsupported when the probe throws', async () => {
    const { actor } = start(new Error('denied'));
    await waitFor(actor, (s) => s.matches('unsupported'));
    expect(actor.getSnapshot().context.gpu).toMatchObject({ supported: false, reason: 'denied' });
  });

  it('checking → supported spawns worker, model and chat, records shader-f16, posts check', async () => {
    const { actor, worker } = start({ supported: true, shaderF16: false });
    await waitFor(actor, (s) => s.matches('supported'));
    const { model, chat, gpu } = actor.getSnapshot().context;
    expect(gpu?.shaderF16).toBe(false);
    expect(model?.getSnapshot().context.shaderF16).toBe(false);
    expect(chat?.getSnapshot().value).toBe('unavailable');
    expect(worker.posted).toEqual([{ type: 'check' }]);
  });

  it('routes load events to the model and generation events to the chat', async () => {
    const { actor, worker } = start({ supported: true, shaderF16: true });
    await waitFor(actor, (s) => s.matches('supported'));
    const { model, chat } = actor.getSnapshot().context;
    model?.send({ type: 'model.select', value: 'llama-3.2-1b' });
    model?.send({ type: 'model.load' });
    expect(worker.posted.at(-1)).toMatchObject({ type: 'load' });
    worker.emit({ status: 'initiate', file: 'a.onnx' });
    expect(model?.getSnapshot().context.files).toHaveLength(1);
    worker.emit({ status: 'ready' });
    expect(model?.getSnapshot().matches('ready')).toBe(true);
    expect(chat?.getSnapshot().value).toBe('idle');
    chat?.send({ type: 'chat.send', text: 'hi' });
    worker.emit({ status: 'start' });
    worker.emit({ status: 'update', output: 'yo', numTokens: 1, channel: 'answer' });
    expect(chat?.getSnapshot().context.messages.at(-1)).toEqual({
      role: 'assistant',
      content: 'yo',
    });
    worker.emit({ status: 'error', data: 'gen failed', phase: 'generate' });
    expect(model?.getSnapshot().matches('ready')).toBe(true);
  });

  it('a fault reaches model (lost), chat (unavailable, draft kept) and Format Input', async () => {
    const { actor, worker } = start({ supported: true, shaderF16: true });
    await waitFor(actor, (s) => s.matches('supported'));
    const { model, chat } = actor.getSnapshot().context;
    worker.emit({ status: 'ready' });
    chat?.send({ type: 'chat.send', text: 'hi' });
    chat?.send({ type: 'chat.input', text: 'typed while it ran' });
    const seen: WorkerResponse[] = [];
    actor.on('dataset.output', (e) => void seen.push(e.message));
    const data = 'The GPU was lost: destroyed. Load the model again.';
    worker.emit({ status: 'fault', kind: 'device-lost', data });
    expect(model?.getSnapshot().value).toBe('lost');
    expect(model?.getSnapshot().context.error).toBe(data);
    expect(chat?.getSnapshot().value).toBe('unavailable');
    expect(chat?.getSnapshot().context.draft).toBe('typed while it ran');
    expect(seen).toEqual([{ status: 'error', data, phase: 'generate', purpose: 'dataset' }]);
  });
});

describe('appMachine — Format Input on the local model', () => {
  it('dataset.generate posts a one-off generation and emits its output, not the chat', async () => {
    const { actor, worker } = start({ supported: true, shaderF16: true });
    await waitFor(actor, (s) => s.matches('supported'));
    const seen: WorkerResponse[] = [];
    actor.on('dataset.output', (e) => void seen.push(e.message));
    actor.send({ type: 'dataset.generate', prompt: 'make pairs' });
    expect(worker.posted.at(-1)).toEqual({
      type: 'generate',
      purpose: 'dataset',
      data: [{ role: 'user', content: 'make pairs' }],
      options: { maxNewTokens: 2048 },
    });
    worker.emit({ status: 'ready' });
    worker.emit({ status: 'start', purpose: 'dataset' });
    worker.emit({
      status: 'update',
      output: '[]',
      numTokens: 1,
      channel: 'answer',
      purpose: 'dataset',
    });
    worker.emit({
      status: 'complete',
      numTokens: 1,
      seconds: 1,
      interrupted: false,
      purpose: 'dataset',
    });
    expect(seen.map((m) => m.status)).toEqual(['start', 'update', 'complete']);
    expect(actor.getSnapshot().context.chat?.getSnapshot().context.messages).toEqual([]);
    actor.send({ type: 'dataset.cancel' });
    expect(worker.posted.at(-1)).toEqual({ type: 'interrupt' });
  });

  it('evaluation.attach routes the worker to the evaluation; detach hands its model to chat and picker', async () => {
    const { actor, worker } = start({ supported: true, shaderF16: true });
    await waitFor(actor, (s) => s.matches('supported'));
    const { model, chat } = actor.getSnapshot().context;
    const evaluation = recorder<EvaluationWorkerEvent>();
    const heard = () => evaluation.posted.map((e) => e.type);
    actor.send({ type: 'evaluation.attach', port: evaluation });
    worker.emit({ status: 'loading', data: 'Loading' });
    worker.emit({ status: 'initiate', file: 'a.onnx' });
    const ready = {
      status: 'ready',
      data: { id: 'onnx-community/Llama-3.2-1B-Instruct-q4f16', dtype: 'q4f16' },
    } as const;
    worker.emit(ready);
    worker.emit({ status: 'start', purpose: 'evaluation' });
    worker.emit({
      status: 'update',
      output: 'x',
      numTokens: 1,
      channel: 'answer',
      purpose: 'evaluation',
    });
    expect(heard()).toEqual([
      'worker.loading',
      'worker.initiate',
      'worker.ready',
      'worker.start',
      'worker.update',
    ]);
    // The model machine saw none of it; the chat waits until the evaluation ends.
    expect(model?.getSnapshot().value).toBe('none');
    expect(model?.getSnapshot().context.files).toEqual([]);
    expect(chat?.getSnapshot().value).toBe('unavailable');

    // 'Format Input' on the local model is refused while the evaluation owns the worker.
    const outputs: string[] = [];
    actor.on('dataset.output', (e) => void outputs.push(e.message.status));
    actor.send({ type: 'dataset.generate', prompt: 'p' });
    expect(outputs).toEqual(['error']);
    expect(worker.posted.some((p) => p.type === 'generate')).toBe(false);

    actor.send({
      type: 'evaluation.detach',
      loaded: { value: 'llama-3.2-1b', ready: { type: 'worker.ready', message: ready } },
    });
    expect(chat?.getSnapshot().value).toBe('idle');
    // The picker selects and loads what the worker holds, so both agree.
    expect(model?.getSnapshot().context.selected).toBe('llama-3.2-1b');
    expect(worker.posted.at(-1)).toMatchObject({ type: 'load' });
    worker.emit({ status: 'initiate', file: 'b.onnx' });
    expect(heard()).toHaveLength(5);
    expect(model?.getSnapshot().context.files).toHaveLength(1);
  });
});
