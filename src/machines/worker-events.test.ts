import { describe, expect, it } from 'vitest';
import { routeWorkerResponse } from './worker-events';

describe('routeWorkerResponse', () => {
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

  it('a fault goes to everyone', () => {
    const fault = { status: 'fault', kind: 'crashed', data: 'gone' } as const;
    expect(routeWorkerResponse(fault)).toEqual({
      model: { type: 'worker.fault', message: fault },
      chat: { type: 'worker.fault', message: fault },
      dataset: { status: 'error', data: 'gone', phase: 'generate', purpose: 'dataset' },
    });
  });

  it('while an evaluation runs: its loads, one-off generations and faults go to it', () => {
    const update = {
      status: 'update',
      output: 'a',
      numTokens: 1,
      channel: 'answer',
      purpose: 'dataset',
    } as const;
    expect(routeWorkerResponse(update, true)).toEqual({
      evaluation: { type: 'worker.update', message: update },
    });
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
