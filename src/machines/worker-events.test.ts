import { describe, expect, it } from 'vitest';
import type { WorkerResponse } from '../shared/worker-protocol';
import { routeWorkerResponse } from './worker-events';

/** One response of every status (and both error phases), as the worker sends them. */
const EVERY_STATUS: WorkerResponse[] = [
  { status: 'loading', data: 'Loading' },
  { status: 'initiate', file: 'a.onnx' },
  { status: 'progress', file: 'a.onnx', progress: 50 },
  { status: 'done', file: 'a.onnx' },
  { status: 'ready', data: { id: 'm', dtype: 'q4' } },
  {
    status: 'reference',
    id: 'm',
    dtype: 'q4',
    check: { result: 'agreed', dtype: 'q4', steps: 16, compared: 16 },
  },
  { status: 'error', data: 'x', phase: 'load' },
  { status: 'start' },
  { status: 'update', output: 'a', numTokens: 1, channel: 'answer' },
  { status: 'complete', numTokens: 1, seconds: 1, interrupted: false },
  { status: 'error', data: 'x', phase: 'generate' },
  { status: 'fault', kind: 'crashed', data: 'gone' },
  { status: 'alive' },
  { status: 'stored', models: [] },
  { status: 'deleted', id: 'm', removed: 1 },
  {
    status: 'plan',
    plan: { id: 'm', dtype: 'q4', totalBytes: 1, largestFile: null, warnings: [] },
  },
  { status: 'storage-error', data: 'x', op: 'list' },
];

describe('routeWorkerResponse', () => {
  it('every routed event is `worker.<status>` carrying its own message (what eventOf claims)', () => {
    for (const evaluating of [false, true])
      for (const message of EVERY_STATUS) {
        const routed = routeWorkerResponse(message, evaluating);
        const events = [routed.model, routed.chat, routed.evaluation, routed.storedModels];
        for (const event of events) {
          if (!event || event.type === 'storedModels.loaded') continue;
          expect(event).toEqual({ type: `worker.${message.status}`, message });
          expect(event.message).toBe(message);
        }
      }
  });

  it('load errors go to the model; generation errors to their purpose', () => {
    expect(routeWorkerResponse({ status: 'error', data: 'x', phase: 'load' })).toEqual({
      model: { type: 'worker.error', message: { status: 'error', data: 'x', phase: 'load' } },
    });
    expect(
      Object.keys(routeWorkerResponse({ status: 'error', data: '', phase: 'generate' })),
    ).toEqual(['chat']);
    expect(
      routeWorkerResponse({ status: 'error', data: '', phase: 'generate', purpose: 'dataset' }),
    ).toEqual({ dataset: { status: 'error', data: '', phase: 'generate', purpose: 'dataset' } });
  });

  it('ready goes to model and chat; progress only to the model; updates to their purpose', () => {
    expect(Object.keys(routeWorkerResponse({ status: 'ready' }))).toEqual([
      'model',
      'chat',
      'storedModels',
    ]);
    // A switch: the chat waits while another model loads; storage replies go to their owners.
    expect(Object.keys(routeWorkerResponse({ status: 'loading', data: '' }))).toEqual([
      'model',
      'chat',
    ]);
    expect(Object.keys(routeWorkerResponse({ status: 'stored', models: [] }))).toEqual([
      'storedModels',
    ]);
    expect(
      Object.keys(routeWorkerResponse({ status: 'storage-error', op: 'plan', data: 'offline' })),
    ).toEqual(['model']);
    expect(Object.keys(routeWorkerResponse({ status: 'done', file: 'f' }))).toEqual(['model']);
    // The heartbeat goes to both that may be waiting on the worker (a load, a reply).
    expect(Object.keys(routeWorkerResponse({ status: 'alive' }))).toEqual(['model', 'chat']);
    const update = { status: 'update', output: 'a', numTokens: 1, channel: 'answer' } as const;
    expect(routeWorkerResponse(update)).toEqual({
      chat: { type: 'worker.update', message: update },
    });
    expect(routeWorkerResponse({ ...update, purpose: 'dataset' })).toEqual({
      dataset: { ...update, purpose: 'dataset' },
    });
  });

  it('a reference check goes to the model; during an evaluation to it and to the model', () => {
    const reference = {
      status: 'reference',
      id: 'trained/x',
      dtype: 'q4',
      check: { result: 'unavailable', reason: 'stopped' },
    } as const;
    expect(routeWorkerResponse(reference)).toEqual({
      model: { type: 'worker.reference', message: reference },
    });
    // The model machine may be waiting on a check of its own that the evaluation's load cut short.
    expect(Object.keys(routeWorkerResponse(reference, true))).toEqual(['evaluation', 'model']);
  });

  it('a fault goes to everyone', () => {
    const fault = { status: 'fault', kind: 'crashed', data: 'gone' } as const;
    expect(routeWorkerResponse(fault)).toEqual({
      model: { type: 'worker.fault', message: fault },
      chat: { type: 'worker.fault', message: fault },
      dataset: { status: 'error', data: 'gone', phase: 'generate', purpose: 'dataset' },
    });
  });

  it('while an evaluation runs: its loads, its generations, faults and the heartbeat go to it', () => {
    const update = {
      status: 'update',
      output: 'a',
      numTokens: 1,
      channel: 'answer',
      purpose: 'evaluation',
    } as const;
    expect(routeWorkerResponse(update, true)).toEqual({
      evaluation: { type: 'worker.update', message: update },
    });
    // Compare has a purpose of its own: 'Format Input''s replies are never taken for Compare's.
    expect(routeWorkerResponse({ ...update, purpose: 'dataset' }, true)).toEqual({
      dataset: { ...update, purpose: 'dataset' },
    });
    // Compare hears the heartbeat (it once heard none: a silent worker took 120 s to notice).
    expect(Object.keys(routeWorkerResponse({ status: 'alive' }, true))).toEqual([
      'model',
      'chat',
      'evaluation',
    ]);
    // The chat's own reply (refused by a busy worker) still reaches the chat.
    expect(
      Object.keys(routeWorkerResponse({ status: 'error', data: 'busy', phase: 'generate' }, true)),
    ).toEqual(['chat']);
    expect(Object.keys(routeWorkerResponse({ status: 'loading', data: '' }, true))).toEqual([
      'evaluation',
      'chat',
    ]);
    expect(Object.keys(routeWorkerResponse({ status: 'ready' }, true))).toEqual([
      'evaluation',
      'storedModels',
    ]);
    expect(
      Object.keys(routeWorkerResponse({ status: 'error', data: 'x', phase: 'load' }, true)),
    ).toEqual(['evaluation']);
    expect(
      Object.keys(routeWorkerResponse({ status: 'fault', kind: 'crashed', data: '' }, true)),
    ).toEqual(['model', 'chat', 'dataset', 'evaluation']);
    expect(Object.keys(routeWorkerResponse({ status: 'stored', models: [] }, true))).toEqual([
      'storedModels',
    ]);
  });
});
