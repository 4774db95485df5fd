import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, waitFor } from 'xstate';
import { storedModelsMachine, type EstimateOutput } from './storedModelsMachine';
import { selectStoredModels, selectStoredModelsError } from './storedModelsSelectors';
import type { StorageRequest } from '../shared/storage-protocol';
import type { StoredModel } from '../shared/storage';
import { recorder } from './test-helpers';

const one: StoredModel = { id: 'local/one', bytes: 5000, files: 2, hosts: ['h'] };
const two: StoredModel = { id: 'local/two', bytes: 100, files: 1, hosts: ['h'] };

function start(
  options: { estimate?: () => Promise<EstimateOutput>; persist?: () => Promise<boolean> } = {},
) {
  const worker = recorder<StorageRequest>();
  const actor = createActor(
    storedModelsMachine.provide({
      actors: {
        storageEstimate: fromPromise(
          options.estimate ?? (async () => ({ usage: 1000, quota: 10_000, persisted: false })),
        ),
        requestPersist: fromPromise(options.persist ?? (async () => true)),
      },
    }),
    { input: { worker } },
  ).start();
  return { actor, posted: worker.posted };
}

const stored = (models: StoredModel[]) =>
  ({ type: 'worker.stored', message: { status: 'stored', models } }) as const;

async function shown(models: StoredModel[] = [one, two]) {
  const h = start();
  h.actor.send({ type: 'storedModels.refresh' });
  h.actor.send(stored(models));
  await waitFor(h.actor, (s) => s.matches('shown'));
  return h;
}

describe('storedModelsMachine', () => {
  it('idle → refresh → listing (worker list + estimate) → shown', async () => {
    const { actor, posted } = start();
    expect(actor.getSnapshot().value).toBe('idle');
    actor.send({ type: 'storedModels.refresh' });
    expect(posted).toEqual([{ type: 'storage.list' }]);
    actor.send(stored([one, two]));
    await waitFor(actor, (s) => s.matches('shown'));
    const s = actor.getSnapshot();
    expect(selectStoredModels(s)).toEqual([one, two]);
    expect(s.context.estimate).toEqual({ usage: 1000, quota: 10_000 });
    expect(s.context.persisted).toBe(false);
  });

  it('listing waits for both the worker and the estimate', async () => {
    const { actor } = start();
    actor.send({ type: 'storedModels.refresh' });
    await Promise.resolve();
    expect(actor.getSnapshot().matches('listing')).toBe(true);
  });

  it('shown → delete → deleting → worker.deleted → listing again', async () => {
    const { actor, posted } = await shown();
    actor.send({ type: 'storedModels.delete', id: 'local/two' });
    expect(actor.getSnapshot().value).toBe('deleting');
    expect(posted.at(-1)).toEqual({ type: 'storage.delete', id: 'local/two' });
    actor.send({
      type: 'worker.deleted',
      message: { status: 'deleted', id: 'local/two', removed: 1 },
    });
    expect(posted.at(-1)).toEqual({ type: 'storage.list' });
    actor.send(stored([one]));
    await waitFor(actor, (s) => s.matches('shown'));
    expect(selectStoredModels(actor.getSnapshot())).toEqual([one]);
  });

  it('the loaded model is refused with a reason and nothing is posted', async () => {
    const { actor, posted } = await shown();
    actor.send({ type: 'storedModels.loaded', id: 'local/one' });
    const before = posted.length;
    actor.send({ type: 'storedModels.delete', id: 'local/one' });
    expect(actor.getSnapshot().value).toBe('shown');
    expect(posted).toHaveLength(before);
    expect(selectStoredModelsError(actor.getSnapshot())).toBe(
      'local/one is the loaded model: load another model before deleting it.',
    );
  });

  it('deleting → worker.storage-error → shown with the error', async () => {
    const { actor } = await shown();
    actor.send({ type: 'storedModels.delete', id: 'local/two' });
    actor.send({
      type: 'worker.storage-error',
      message: { status: 'storage-error', data: 'Cache is locked', op: 'delete', id: 'local/two' },
    });
    expect(actor.getSnapshot().value).toBe('shown');
    expect(selectStoredModelsError(actor.getSnapshot())).toBe('Cache is locked');
  });

  it('a failed list or estimate still reaches shown, with the error', async () => {
    const { actor } = start({
      estimate: () => Promise.reject(new Error('estimate unavailable')),
    });
    actor.send({ type: 'storedModels.refresh' });
    actor.send({
      type: 'worker.storage-error',
      message: { status: 'storage-error', data: 'no caches', op: 'list' },
    });
    await waitFor(actor, (s) => s.matches('shown'));
    expect(selectStoredModelsError(actor.getSnapshot())).toMatch(/no caches|estimate unavailable/);
  });

  it('shown → persist → persisting → shown with the browser’s answer', async () => {
    const { actor } = await shown();
    actor.send({ type: 'storedModels.persist' });
    expect(actor.getSnapshot().value).toBe('persisting');
    await waitFor(actor, (s) => s.matches('shown'));
    expect(actor.getSnapshot().context.persisted).toBe(true);
  });
});
