import { describe, expect, it } from 'vitest';
import { createActor, waitFor } from 'xstate';
import { modelMachine } from './modelMachine';
import { selectCanLoad, selectModelStatus, selectReferenceCheck } from './modelSelectors';
import { CHECKING, type ReferenceCheck } from '../shared/reference-check';
import { fakeWorker } from './test-helpers';
import { divergedCheck, TRAINED_WITH_REFERENCE } from '../shared/reference-check.fixtures';
import { MODELS } from '../shared/models';

function start(shaderF16 = true) {
  const worker = fakeWorker();
  const actor = createActor(modelMachine, { input: { worker, models: MODELS, shaderF16 } }).start();
  return { actor, worker };
}

describe('modelMachine', () => {
  it('none → model.load without a selection does nothing (PRODUCT.md §2)', () => {
    const { actor, worker } = start();
    actor.send({ type: 'model.load' });
    expect(actor.getSnapshot().value).toBe('none');
    expect(worker.posted).toEqual([]);
    expect(selectCanLoad(actor.getSnapshot())).toBe(false);
  });

  it('a blank or whitespace-only selection is no selection', () => {
    const { actor } = start();
    actor.send({ type: 'model.select', value: '   ' });
    expect(actor.getSnapshot().context.selected).toBe('');
    actor.send({ type: 'model.load' });
    expect(actor.getSnapshot().value).toBe('none');
  });

  it('none → model.load → loading posts load with the hub id, dtype and fallback', () => {
    const { actor, worker } = start(false);
    actor.send({ type: 'model.select', value: 'llama-3.2-1b' });
    expect(selectCanLoad(actor.getSnapshot())).toBe(true);
    actor.send({ type: 'model.load' });
    expect(actor.getSnapshot().matches('loading')).toBe(true);
    expect(worker.posted).toEqual([
      // Selecting asks the worker for the download size first.
      {
        type: 'plan',
        data: { id: 'onnx-community/Llama-3.2-1B-Instruct', dtype: 'q4', host: undefined },
      },
      {
        type: 'load',
        data: expect.objectContaining({
          id: 'onnx-community/Llama-3.2-1B-Instruct-q4f16',
          dtype: 'q4f16',
          shaderF16: false,
          fallback: { id: 'onnx-community/Llama-3.2-1B-Instruct', dtype: 'q4' },
        }),
      },
    ]);
  });

  it('loading tracks files: initiate adds, progress updates, done removes', () => {
    const { actor } = start();
    actor.send({ type: 'model.select', value: 'llama-3.2-1b' });
    actor.send({ type: 'model.load' });
    actor.send({
      type: 'worker.loading',
      message: { status: 'loading', data: 'Loading model...' },
    });
    actor.send({
      type: 'worker.initiate',
      message: { status: 'initiate', file: 'onnx/model.onnx' },
    });
    actor.send({
      type: 'worker.initiate',
      message: { status: 'initiate', file: 'tokenizer.json' },
    });
    actor.send({
      type: 'worker.progress',
      message: { status: 'progress', file: 'onnx/model.onnx', progress: 42.5, total: 2048 },
    });
    expect(actor.getSnapshot().context.files).toEqual([
      { file: 'onnx/model.onnx', progress: 42.5, total: 2048 },
      { file: 'tokenizer.json', progress: 0, total: undefined },
    ]);
    actor.send({ type: 'worker.done', message: { status: 'done', file: 'tokenizer.json' } });
    expect(actor.getSnapshot().context.files.map((f) => f.file)).toEqual(['onnx/model.onnx']);
    expect(actor.getSnapshot().context.statusText).toBe('Loading model...');
  });

  it('loading → worker.ready → ready', () => {
    const { actor } = start();
    actor.send({ type: 'model.select', value: 'phi-3.5-mini' });
    actor.send({ type: 'model.load' });
    actor.send({
      type: 'worker.ready',
      message: { status: 'ready', data: { id: 'x', dtype: 'q4f16' } },
    });
    expect(actor.getSnapshot().value).toEqual({ ready: 'unchecked' });
    expect(actor.getSnapshot().context.loaded).toEqual({ id: 'x', dtype: 'q4f16' });
  });

  it('loading → worker.error → failed stores the message and disables Load (PRODUCT.md §2)', () => {
    const { actor, worker } = start();
    actor.send({ type: 'model.select', value: 'phi-3.5-mini' });
    actor.send({ type: 'model.load' });
    actor.send({ type: 'worker.error', message: { status: 'error', data: 'boom', phase: 'load' } });
    const s = actor.getSnapshot();
    expect(s.value).toBe('failed');
    expect(s.context.error).toBe('boom');
    expect(selectCanLoad(s)).toBe(false);
    actor.send({ type: 'model.load' });
    expect(actor.getSnapshot().value).toBe('failed');
    expect(worker.posted.filter((r) => r.type === 'load')).toHaveLength(1);
  });

  it('failed → model.retry → loading posts load again', () => {
    const { actor, worker } = start();
    actor.send({ type: 'model.select', value: 'phi-3.5-mini' });
    actor.send({ type: 'model.load' });
    actor.send({ type: 'worker.error', message: { status: 'error', data: 'boom', phase: 'load' } });
    actor.send({ type: 'model.retry' });
    expect(actor.getSnapshot().matches('loading')).toBe(true);
    expect(actor.getSnapshot().context.error).toBeNull();
    expect(worker.posted.filter((r) => r.type === 'load')).toHaveLength(2);
  });

  it('failed → choosing another model → none with the error cleared', () => {
    const { actor } = start();
    actor.send({ type: 'model.select', value: 'phi-3.5-mini' });
    actor.send({ type: 'model.load' });
    actor.send({ type: 'worker.error', message: { status: 'error', data: 'boom', phase: 'load' } });
    actor.send({ type: 'model.select', value: 'phi-3.5-mini' });
    expect(actor.getSnapshot().value).toBe('failed');
    actor.send({ type: 'model.select', value: 'gemma-2-2b-jpn' });
    expect(actor.getSnapshot().value).toBe('none');
    expect(actor.getSnapshot().context.error).toBeNull();
    expect(selectCanLoad(actor.getSnapshot())).toBe(true);
  });
});

describe('modelMachine — never a hang', () => {
  it('none → worker.error (worker failed to start) → failed, shown before any load', () => {
    const { actor } = start();
    actor.send({
      type: 'worker.error',
      message: { status: 'error', data: 'no adapter', phase: 'load' },
    });
    expect(actor.getSnapshot().value).toBe('failed');
    expect(actor.getSnapshot().context.error).toBe('no adapter');
  });

  it('loading with no worker event for the stall delay → failed with a message; events restart the timer', async () => {
    const worker = fakeWorker();
    const actor = createActor(modelMachine.provide({ delays: { loadStall: 40 } }), {
      input: { worker, models: MODELS, shaderF16: true },
    }).start();
    actor.send({ type: 'model.select', value: 'phi-3.5-mini' });
    actor.send({ type: 'model.load' });
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 20));
      actor.send({
        type: 'worker.progress',
        message: { status: 'progress', file: 'f', progress: i },
      });
    }
    expect(actor.getSnapshot().matches('loading')).toBe(true);
    await waitFor(actor, (s) => s.matches('failed'));
    expect(actor.getSnapshot().context.error).toMatch(/stopped responding/);
  });
});

describe('modelMachine — a dead worker while loading', () => {
  const loadingActor = () => {
    const worker = fakeWorker();
    const actor = createActor(
      modelMachine.provide({ delays: { loadStall: 10_000, loadSilence: 60 } }),
      { input: { worker, models: MODELS, shaderF16: true } },
    ).start();
    actor.send({ type: 'model.select', value: 'phi-3.5-mini' });
    actor.send({ type: 'model.load' });
    return { actor, worker };
  };

  it('loading ⇄ worker.alive: a live worker with no progress (a long session creation) is not abandoned', async () => {
    const { actor, worker } = loadingActor();
    for (let i = 0; i < 6; i++) {
      await new Promise((r) => setTimeout(r, 30));
      actor.send({ type: 'worker.alive', message: { status: 'alive' } });
    }
    expect(actor.getSnapshot().matches('loading')).toBe(true);
    expect(worker.posted.some((r) => r.type === 'abandon')).toBe(false);
  });

  it('loading, silent for loadSilence → the worker is abandoned; its fault → lost', async () => {
    const { actor, worker } = loadingActor();
    await new Promise((r) => setTimeout(r, 120));
    expect(worker.posted.at(-1)).toEqual({ type: 'abandon', data: 'it went silent while loading' });
    actor.send({
      type: 'worker.fault',
      message: {
        status: 'fault',
        kind: 'unresponsive',
        data: 'The model stopped responding: it went silent while loading. Load the model again.',
      },
    });
    await waitFor(actor, (s) => s.matches('lost'));
  });
});

describe('modelMachine — Load in chat from the hub', () => {
  it('model.add appends a hub model (q4f16 with q4 fallback) and selects it', () => {
    const { actor, worker } = start(false);
    actor.send({ type: 'model.add', id: 'onnx-community/Qwen2.5-0.5B-Instruct' });
    const s = actor.getSnapshot();
    expect(s.context.selected).toBe('onnx-community/Qwen2.5-0.5B-Instruct');
    expect(s.context.models.at(-1)).toMatchObject({ dtype: 'q4f16', fallback: { dtype: 'q4' } });
    actor.send({ type: 'model.load' });
    expect(worker.posted.at(-1)).toMatchObject({
      type: 'load',
      data: { id: 'onnx-community/Qwen2.5-0.5B-Instruct' },
    });
  });

  it('a known model is selected, not duplicated; a bad id is ignored', () => {
    const { actor } = start();
    actor.send({ type: 'model.add', id: 'onnx-community/Llama-3.2-1B-Instruct-q4f16' });
    expect(actor.getSnapshot().context.selected).toBe('llama-3.2-1b');
    expect(actor.getSnapshot().context.models).toHaveLength(MODELS.length);
    actor.send({ type: 'model.add', id: 'not a repo' });
    expect(actor.getSnapshot().context.models).toHaveLength(MODELS.length);
  });

  it.each(['a--b/model', 'owner/..', 'owner/-name', 'owner/name.', 'a/b/c', 'name-only'])(
    'model.add %s: not a Hub model id (src/shared/model-id.ts), ignored',
    (id) => {
      const { actor } = start();
      const before = actor.getSnapshot().context.models.length;
      actor.send({ type: 'model.add', id });
      expect(actor.getSnapshot().context.models).toHaveLength(before);
    },
  );

  it('ready → model.select another → model.load → loading (a switch); the loaded one cannot be reloaded', () => {
    const { actor, worker } = start(true);
    actor.send({ type: 'model.select', value: 'llama-3.2-1b' });
    actor.send({ type: 'model.load' });
    actor.send({
      type: 'worker.ready',
      message: {
        status: 'ready',
        data: { id: 'onnx-community/Llama-3.2-1B-Instruct-q4f16', dtype: 'q4f16' },
      },
    });
    expect(actor.getSnapshot().matches('ready')).toBe(true);
    expect(selectCanLoad(actor.getSnapshot())).toBe(false);
    actor.send({ type: 'model.load' });
    expect(actor.getSnapshot().matches('ready')).toBe(true);
    actor.send({ type: 'model.select', value: 'gemma-2-2b-jpn' });
    expect(actor.getSnapshot().matches('ready')).toBe(true);
    expect(selectCanLoad(actor.getSnapshot())).toBe(true);
    actor.send({ type: 'model.load' });
    expect(actor.getSnapshot().matches('loading')).toBe(true);
    expect(worker.posted.at(-1)).toMatchObject({
      type: 'load',
      data: { id: 'onnx-community/gemma-2-2b-jpn-it' },
    });
  });

  // Regression: Load in chat from the Hub was silently dropped once a model was loading or ready.
  it.each(['loading', 'ready'] as const)('model.add is handled in %s', (state) => {
    const { actor } = start(true);
    actor.send({ type: 'model.select', value: 'llama-3.2-1b' });
    actor.send({ type: 'model.load' });
    if (state === 'ready') actor.send({ type: 'worker.ready', message: { status: 'ready' } });
    actor.send({ type: 'model.add', id: 'someone/new-model' });
    const s = actor.getSnapshot();
    expect(s.matches(state)).toBe(true);
    expect(s.context.selected).toBe('someone/new-model');
    expect(s.context.models.some((m) => m.id === 'someone/new-model')).toBe(true);
  });

  it('selecting asks for the download plan; an answer for another model is dropped', () => {
    const { actor, worker } = start(true);
    actor.send({ type: 'model.select', value: 'gemma-2-2b-jpn' });
    expect(worker.posted.at(-1)).toEqual({
      type: 'plan',
      data: { id: 'onnx-community/gemma-2-2b-jpn-it', dtype: 'q4f16', host: undefined },
    });
    const plan = (id: string) => ({
      type: 'worker.plan' as const,
      message: {
        status: 'plan' as const,
        plan: { id, dtype: 'q4f16', totalBytes: 10, largestFile: null, warnings: [] },
      },
    });
    actor.send(plan('someone/else'));
    expect(actor.getSnapshot().context.plan).toBeNull();
    actor.send(plan('onnx-community/gemma-2-2b-jpn-it'));
    expect(actor.getSnapshot().context.plan?.totalBytes).toBe(10);
  });
});

describe('modelMachine — a model served by the training service', () => {
  // Choosing a trained model planned it on the Hub: the page asked
  // https://huggingface.co/trained/<name>/resolve/main/config.json.
  it('choosing it plans on its own host (the service), never the picker host', () => {
    const { actor, worker } = start(true);
    const host = 'http://127.0.0.1:8000/';
    actor.send({
      type: 'model.add',
      id: 'trained/run-1',
      option: {
        value: 'trained/run-1',
        label: 'run-1 (fine-tuned)',
        id: 'trained/run-1',
        dtype: 'q4',
        host,
        trainerReference: true,
      },
    });
    expect(worker.posted.at(-1)).toEqual({
      type: 'plan',
      data: { id: 'trained/run-1', dtype: 'q4', host },
    });
  });
});

describe('modelMachine — lost GPU or worker', () => {
  it('ready → worker.fault → lost with the message; model.reload loads the same model again', () => {
    const { actor, worker } = start();
    actor.send({ type: 'model.select', value: 'phi-3.5-mini' });
    actor.send({ type: 'model.load' });
    actor.send({ type: 'worker.ready', message: { status: 'ready' } });
    const data = 'The GPU was lost: destroyed. Load the model again.';
    actor.send({ type: 'worker.fault', message: { status: 'fault', kind: 'device-lost', data } });
    expect(actor.getSnapshot().value).toBe('lost');
    expect(actor.getSnapshot().context.error).toBe(data);
    const loads = worker.posted.filter((r) => r.type === 'load').length;
    actor.send({ type: 'model.reload' });
    expect(actor.getSnapshot().matches('loading')).toBe(true);
    expect(actor.getSnapshot().context.error).toBeNull();
    expect(worker.posted.filter((r) => r.type === 'load')).toHaveLength(loads + 1);
  });

  it('a fault while loading also ends in lost', () => {
    const { actor } = start();
    actor.send({ type: 'model.select', value: 'phi-3.5-mini' });
    actor.send({ type: 'model.load' });
    actor.send({
      type: 'worker.fault',
      message: { status: 'fault', kind: 'crashed', data: 'The model worker crashed.' },
    });
    expect(actor.getSnapshot().value).toBe('lost');
  });
});

describe('modelMachine — trained models (training service)', () => {
  const trained = {
    value: 'trained/harbour-run',
    label: 'harbour-run (fine-tuned)',
    id: 'trained/harbour-run',
    dtype: 'fp32',
    host: 'http://127.0.0.1:8000/',
  };

  it('listed without selecting; loading one uses its own host, not the app model host', () => {
    const worker = fakeWorker();
    const actor = createActor(modelMachine, {
      input: { worker, models: MODELS, shaderF16: true, host: 'http://127.0.0.1:9999/' },
    }).start();
    actor.send({ type: 'model.select', value: 'llama-3.2-1b' });
    actor.send({ type: 'model.add', id: trained.id, option: trained, select: false });
    actor.send({ type: 'model.add', id: trained.id, option: trained, select: false });
    expect(actor.getSnapshot().context.selected).toBe('llama-3.2-1b');
    expect(actor.getSnapshot().context.models.filter((m) => m.id === trained.id)).toHaveLength(1);
    actor.send({ type: 'model.add', id: trained.id, option: trained });
    actor.send({ type: 'model.load' });
    expect(worker.posted.at(-1)).toMatchObject({
      type: 'load',
      data: { id: 'trained/harbour-run', dtype: 'fp32', host: 'http://127.0.0.1:8000/' },
    });
  });

  it('Load in chat with another model ready switches to the trained one; listing keeps it ready', () => {
    const { actor, worker } = start();
    actor.send({ type: 'model.select', value: 'llama-3.2-1b' });
    actor.send({ type: 'model.load' });
    actor.send({ type: 'worker.ready', message: { status: 'ready' } } as never);
    expect(actor.getSnapshot().matches('ready')).toBe(true);
    actor.send({ type: 'model.add', id: trained.id, option: trained, select: false });
    expect(actor.getSnapshot().matches('ready')).toBe(true);
    actor.send({ type: 'model.add', id: trained.id, option: trained });
    actor.send({ type: 'model.load' });
    expect(actor.getSnapshot().matches('loading')).toBe(true);
    expect(worker.posted.at(-1)).toMatchObject({ data: { id: 'trained/harbour-run' } });
  });

  it('the service stopped while loading: the error stays in view when trained models are listed', () => {
    const { actor } = start();
    actor.send({ type: 'model.add', id: trained.id, option: trained });
    actor.send({ type: 'model.load' });
    actor.send({
      type: 'worker.error',
      message: {
        status: 'error',
        phase: 'load',
        data: 'Network error while downloading the model',
      },
    } as never);
    expect(actor.getSnapshot().value).toBe('failed');
    actor.send({ type: 'model.add', id: trained.id, option: trained, select: false });
    expect(actor.getSnapshot().value).toBe('failed');
    expect(actor.getSnapshot().context.error).toMatch(/Network error/);
  });
});

describe('modelMachine — checked on this GPU (a trained model)', () => {
  const trained = TRAINED_WITH_REFERENCE;
  const agreed: ReferenceCheck = { result: 'agreed', dtype: 'q4', steps: 16, compared: 16 };
  const reference = (check: ReferenceCheck, id = trained.id, dtype = 'q4') =>
    ({ type: 'worker.reference', message: { status: 'reference', id, dtype, check } }) as const;
  /** The worker's word that the trained model loaded and its check is under way. */
  const readyChecking = {
    type: 'worker.ready',
    message: { status: 'ready', data: { id: trained.id, dtype: 'q4', checking: true } },
  } as const;

  function loadTrained() {
    const { actor, worker } = start(false);
    actor.send({ type: 'model.add', id: trained.id, option: trained });
    actor.send({ type: 'model.load' });
    return { actor, worker };
  }

  it('the load asks the worker to check (trainerReference); other models do not', () => {
    const { worker } = loadTrained();
    expect(worker.posted.at(-1)).toMatchObject({
      type: 'load',
      data: { id: trained.id, trainerReference: true, host: trained.host },
    });
    const other = start();
    other.actor.send({ type: 'model.select', value: 'llama-3.2-1b' });
    other.actor.send({ type: 'model.load' });
    expect(other.worker.posted.at(-1)).toMatchObject({ type: 'load' });
    expect(other.worker.posted.at(-1)).not.toMatchObject({ data: { trainerReference: true } });
  });

  it('loading → worker.ready (checking) → ready.checking → worker.reference → ready.checked', () => {
    const { actor } = loadTrained();
    actor.send(readyChecking);
    expect(actor.getSnapshot().value).toEqual({ ready: 'checking' });
    // Usable while it is checked: the status is ready, Load stays as for any ready model.
    expect(selectModelStatus(actor.getSnapshot())).toBe('ready');
    expect(selectReferenceCheck(actor.getSnapshot())).toBe(CHECKING);
    actor.send(reference(agreed));
    expect(actor.getSnapshot().value).toEqual({ ready: 'checked' });
    expect(selectReferenceCheck(actor.getSnapshot())).toEqual(agreed);
  });

  it('a diverged check keeps the model ready and usable', () => {
    const { actor } = loadTrained();
    actor.send(readyChecking);
    const diverged = divergedCheck({ step: 1 });
    actor.send(reference(diverged));
    expect(actor.getSnapshot().matches({ ready: 'checked' })).toBe(true);
    expect(actor.getSnapshot().context.error).toBeNull();
    expect(selectReferenceCheck(actor.getSnapshot())).toEqual(diverged);
  });

  it("'Load fp32 instead': the check's other variant loads (no fallback) and is checked in turn", () => {
    const { actor, worker } = loadTrained();
    actor.send(readyChecking);
    // Only once the check has its outcome.
    actor.send({ type: 'model.loadAlternative', dtype: 'fp32' });
    expect(actor.getSnapshot().value).toEqual({ ready: 'checking' });
    actor.send(reference(divergedCheck({ step: 1, alternative: 'fp32' })));
    actor.send({ type: 'model.loadAlternative', dtype: 'fp32' });
    expect(actor.getSnapshot().matches('loading')).toBe(true);
    expect(worker.posted.at(-1)).toMatchObject({
      type: 'load',
      data: { id: trained.id, dtype: 'fp32', fallback: undefined, trainerReference: true },
    });
    actor.send({
      type: 'worker.ready',
      message: { status: 'ready', data: { id: trained.id, dtype: 'fp32', checking: true } },
    });
    actor.send(reference(agreed, trained.id, 'fp32'));
    expect(selectReferenceCheck(actor.getSnapshot())).toEqual(agreed);
    // The chosen variant is what is loaded now: Load has nothing to switch to.
    expect(actor.getSnapshot().can({ type: 'model.load' })).toBe(false);
  });

  it("ready.checking ignores a check of another model (an evaluation's load)", () => {
    const { actor } = loadTrained();
    actor.send(readyChecking);
    actor.send(reference(agreed, 'trained/other'));
    actor.send(reference(agreed, trained.id, 'fp32'));
    expect(actor.getSnapshot().value).toEqual({ ready: 'checking' });
  });

  it('a model without a reference stays unchecked and shows nothing', () => {
    const { actor } = start();
    actor.send({ type: 'model.select', value: 'llama-3.2-1b' });
    actor.send({ type: 'model.load' });
    actor.send({
      type: 'worker.ready',
      message: { status: 'ready', data: { id: 'onnx-community/x', dtype: 'q4f16' } },
    });
    actor.send(reference(agreed, 'onnx-community/x', 'q4f16'));
    expect(actor.getSnapshot().value).toEqual({ ready: 'unchecked' });
    expect(selectReferenceCheck(actor.getSnapshot())).toBeNull();
  });

  it('ready.checked → model.load another → loading: the old check is gone', () => {
    const { actor } = loadTrained();
    actor.send(readyChecking);
    actor.send(reference(agreed));
    actor.send({ type: 'model.select', value: 'llama-3.2-1b' });
    actor.send({ type: 'model.load' });
    expect(selectReferenceCheck(actor.getSnapshot())).toBeNull();
    actor.send({
      type: 'worker.ready',
      message: { status: 'ready', data: { id: 'onnx-community/x', dtype: 'q4' } },
    });
    expect(actor.getSnapshot().context.check).toBeNull();
    expect(selectReferenceCheck(actor.getSnapshot())).toBeNull();
  });
});
