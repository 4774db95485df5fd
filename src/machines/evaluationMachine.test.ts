import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromCallback } from 'xstate';
import {
  NO_QUESTIONS_MESSAGE,
  evaluationMachine,
  type EvalModel,
  type EvaluationSetup,
  type EvaluationStoreCommand,
  type EvaluationStoreResult,
} from './evaluationMachine';
import { selectChecks, selectPhase } from './evaluationSelectors';
import { CHECKING, type ReferenceCheck } from '../shared/reference-check';
import type { EvaluationSessionEvent } from './appMachine';
import type { EvaluationRecord } from '../shared/evaluation';
import { defaultSettings } from '../shared/generation-settings';
import { fakeWorker, recorder } from './test-helpers';
import { divergedCheck } from '../shared/reference-check.fixtures';
import { LOAD_SILENCE_MS, REPLY_SILENCE_MS } from '../shared/liveness';

const model = (value: string): EvalModel => ({
  value,
  label: value,
  id: value,
  spec: { id: value, dtype: 'q4', shaderF16: false },
});

function setupOf(questions: string[], b = 'trained/run'): EvaluationSetup {
  return {
    id: 'eval-1',
    createdAt: 1,
    a: model('base/model'),
    b: model(b),
    questions: questions.map((prompt) => ({ prompt, reference: `ref ${prompt}` })),
    settings: { ...defaultSettings(64), systemPrompt: 'Be brief.' },
    source: { kind: 'pasted' },
  };
}

/** The machine with a recording worker, session and store (`failSaves`: every save fails). */
function start({ failSaves = false } = {}) {
  const worker = fakeWorker();
  const session = recorder<EvaluationSessionEvent>();
  const saved: EvaluationRecord[] = [];
  const store = fromCallback<EvaluationStoreCommand>(({ sendBack, receive }) => {
    receive((command) => {
      saved.push(command.record);
      sendBack(
        (failSaves
          ? { type: 'evaluationStore.failed', message: 'Browser storage is full.' }
          : {
              type: 'evaluationStore.saved',
              id: command.record.id,
            }) satisfies EvaluationStoreResult,
      );
    });
  });
  const actor = createActor(evaluationMachine.provide({ actors: { store } }), {
    input: { worker, session },
  }).start();
  const ready = (id: string) =>
    actor.send({ type: 'worker.ready', message: { status: 'ready', data: { id, dtype: 'q4' } } });
  const answer = (text: string) => {
    actor.send({ type: 'worker.start', message: { status: 'start', purpose: 'evaluation' } });
    actor.send({
      type: 'worker.update',
      message: { status: 'update', output: text, numTokens: 2, tps: 5, channel: 'answer' },
    });
    actor.send({
      type: 'worker.complete',
      message: {
        status: 'complete',
        numTokens: 2,
        seconds: 0.5,
        interrupted: false,
        finish: 'end',
        purpose: 'evaluation',
      },
    });
  };
  return { actor, worker, session: session.posted, saved, ready, answer };
}

describe('evaluationMachine', () => {
  it('idle → loadingA → answeringA (each question) → loadingB → answeringB → done', () => {
    const { actor, worker, session, saved, ready, answer } = start();
    actor.send({ type: 'evaluation.start', setup: setupOf(['q1', 'q2']) });
    expect(selectPhase(actor.getSnapshot())).toBe('loadingA');
    expect(session[0]).toMatchObject({ type: 'evaluation.attach' });
    expect(worker.posted).toEqual([{ type: 'load', data: model('base/model').spec }]);

    ready('base/model');
    expect(selectPhase(actor.getSnapshot())).toBe('answeringA');
    // A fresh conversation per question, the settings of the comparison, Compare's own purpose.
    expect(worker.posted[1]).toEqual({
      type: 'generate',
      purpose: 'evaluation',
      data: [{ role: 'user', content: 'q1' }],
      options: {
        maxNewTokens: 64,
        temperature: 0,
        topP: 1,
        repetitionPenalty: 1,
        systemPrompt: 'Be brief.',
      },
    });
    answer('A one');
    expect(worker.posted[2]).toMatchObject({ data: [{ role: 'user', content: 'q2' }] });
    answer('A two');
    expect(selectPhase(actor.getSnapshot())).toBe('loadingB');
    expect(worker.posted[3]).toEqual({ type: 'load', data: model('trained/run').spec });

    ready('trained/run');
    answer('B one');
    answer('B two');
    const snapshot = actor.getSnapshot();
    expect(selectPhase(snapshot)).toBe('done');
    expect(snapshot.context.rows).toEqual([
      {
        prompt: 'q1',
        reference: 'ref q1',
        a: { text: 'A one', numTokens: 2, seconds: 0.5, truncated: false },
        b: { text: 'B one', numTokens: 2, seconds: 0.5, truncated: false },
      },
      {
        prompt: 'q2',
        reference: 'ref q2',
        a: { text: 'A two', numTokens: 2, seconds: 0.5, truncated: false },
        b: { text: 'B two', numTokens: 2, seconds: 0.5, truncated: false },
      },
    ]);
    // The worker is handed back with B loaded, so the chat and the picker follow.
    expect(session.at(-1)).toMatchObject({
      type: 'evaluation.detach',
      loaded: { value: 'trained/run', ready: { type: 'worker.ready' } },
    });
    // Saved after every answer and at the end.
    expect(saved.at(-1)).toMatchObject({
      id: 'eval-1',
      status: 'done',
      rows: snapshot.context.rows,
    });
    expect(saved.length).toBe(4);
  });

  it('A and B the same model: loaded once', () => {
    const { actor, worker, ready, answer } = start();
    actor.send({ type: 'evaluation.start', setup: setupOf(['q1'], 'base/model') });
    ready('base/model');
    answer('x');
    expect(selectPhase(actor.getSnapshot())).toBe('answeringB');
    answer('y');
    expect(selectPhase(actor.getSnapshot())).toBe('done');
    expect(worker.posted.filter((p) => p.type === 'load')).toHaveLength(1);
  });

  it('a question set with no entries is refused with a message, nothing posted', () => {
    const { actor, worker } = start();
    actor.send({ type: 'evaluation.start', setup: setupOf([]) });
    expect(selectPhase(actor.getSnapshot())).toBe('idle');
    expect(actor.getSnapshot().context.startError).toBe(NO_QUESTIONS_MESSAGE);
    expect(worker.posted).toEqual([]);
  });

  it('answeringA → evaluation.stop → stopped: finished rows stay, the reply being written is dropped', () => {
    const { actor, worker, session, saved, ready, answer } = start();
    actor.send({ type: 'evaluation.start', setup: setupOf(['q1', 'q2', 'q3']) });
    ready('base/model');
    answer('A one');
    actor.send({
      type: 'worker.update',
      message: { status: 'update', output: 'half', numTokens: 1, channel: 'answer' },
    });
    actor.send({ type: 'evaluation.stop' });
    expect(worker.posted.at(-1)).toEqual({ type: 'interrupt' });
    expect(selectPhase(actor.getSnapshot())).toBe('stopping');
    actor.send({
      type: 'worker.complete',
      message: { status: 'complete', numTokens: 1, seconds: 0.1, interrupted: true },
    });
    const snapshot = actor.getSnapshot();
    expect(selectPhase(snapshot)).toBe('stopped');
    expect(snapshot.context.rows.map((r) => r.a?.text ?? null)).toEqual(['A one', null, null]);
    expect(snapshot.context.partial).toBe('');
    expect(saved.at(-1)).toMatchObject({ status: 'stopped' });
    expect(session.at(-1)).toMatchObject({
      type: 'evaluation.detach',
      loaded: { value: 'base/model' },
    });

    // Continue: from the first question not answered, the model loaded again.
    actor.send({ type: 'evaluation.retry' });
    expect(selectPhase(actor.getSnapshot())).toBe('loadingA');
    ready('base/model');
    expect(worker.posted.at(-1)).toMatchObject({ data: [{ role: 'user', content: 'q2' }] });
  });

  it('loadingB → worker.error → failed: rows kept, the error in place; Retry loads B and continues', () => {
    const { actor, worker, session, saved, ready, answer } = start();
    actor.send({ type: 'evaluation.start', setup: setupOf(['q1', 'q2']) });
    ready('base/model');
    answer('A one');
    answer('A two');
    actor.send({
      type: 'worker.error',
      message: { status: 'error', phase: 'load', data: 'Network error while downloading' },
    });
    let snapshot = actor.getSnapshot();
    expect(selectPhase(snapshot)).toBe('failed');
    expect(snapshot.context.error).toBe(
      'trained/run failed to load: Network error while downloading',
    );
    expect(snapshot.context.rows.map((r) => r.a?.text)).toEqual(['A one', 'A two']);
    expect(saved.at(-1)).toMatchObject({ status: 'failed', error: snapshot.context.error });
    expect(session.at(-1)).toEqual({ type: 'evaluation.detach', loaded: null });

    actor.send({ type: 'evaluation.retry' });
    expect(selectPhase(actor.getSnapshot())).toBe('loadingB');
    expect(actor.getSnapshot().context.error).toBeNull();
    expect(worker.posted.at(-1)).toEqual({ type: 'load', data: model('trained/run').spec });
    ready('trained/run');
    answer('B one');
    answer('B two');
    snapshot = actor.getSnapshot();
    expect(selectPhase(snapshot)).toBe('done');
    expect(snapshot.context.rows.map((r) => [r.a?.text, r.b?.text])).toEqual([
      ['A one', 'B one'],
      ['A two', 'B two'],
    ]);
  });

  it('a fault while answering → failed, the worker handed back with nothing loaded', () => {
    const { actor, session, ready } = start();
    actor.send({ type: 'evaluation.start', setup: setupOf(['q1']) });
    ready('base/model');
    actor.send({
      type: 'worker.fault',
      message: { status: 'fault', kind: 'device-lost', data: 'The GPU was lost.' },
    });
    expect(selectPhase(actor.getSnapshot())).toBe('failed');
    expect(actor.getSnapshot().context.error).toBe('The GPU was lost.');
    expect(session.at(-1)).toEqual({ type: 'evaluation.detach', loaded: null });
    actor.send({ type: 'evaluation.retry' });
    expect(selectPhase(actor.getSnapshot())).toBe('loadingA');
  });

  it('storage full when saving: the rows stay and the error says why', () => {
    const { actor, ready, answer } = start({ failSaves: true });
    actor.send({ type: 'evaluation.start', setup: setupOf(['q1'], 'base/model') });
    ready('base/model');
    answer('x');
    answer('y');
    const snapshot = actor.getSnapshot();
    expect(selectPhase(snapshot)).toBe('done');
    expect(snapshot.context.saveError).toBe('Browser storage is full.');
    expect(snapshot.context.rows[0]?.b?.text).toBe('y');
  });

  it('Stop while a model loads waits for the load, then stops', () => {
    const { actor, ready } = start();
    actor.send({ type: 'evaluation.start', setup: setupOf(['q1']) });
    actor.send({ type: 'evaluation.stop' });
    expect(selectPhase(actor.getSnapshot())).toBe('stopping');
    ready('base/model');
    expect(selectPhase(actor.getSnapshot())).toBe('stopped');
  });
});

describe('evaluationMachine — checked on this GPU', () => {
  const agreed: ReferenceCheck = { result: 'agreed', dtype: 'q4', steps: 16, compared: 16 };
  const diverged = divergedCheck({ step: 2 });
  const readyChecking = (id: string) =>
    ({
      type: 'worker.ready',
      message: { status: 'ready', data: { id, dtype: 'q4', checking: true } },
    }) as const;
  const reference = (id: string, check: ReferenceCheck) =>
    ({
      type: 'worker.reference',
      message: { status: 'reference', id, dtype: 'q4', check },
    }) as const;

  it("each trained model's check is kept for its side; a model without one has none", () => {
    const { actor, ready, answer } = start();
    actor.send({ type: 'evaluation.start', setup: setupOf(['q1']) });
    ready('base/model');
    expect(selectChecks(actor.getSnapshot())).toEqual({ a: null, b: null });
    answer('A one');
    actor.send(readyChecking('trained/run'));
    expect(selectChecks(actor.getSnapshot())).toEqual({ a: null, b: CHECKING });
    // A check of another model (not this side's) is not this side's.
    actor.send(reference('base/model', agreed));
    expect(selectChecks(actor.getSnapshot()).b).toBe(CHECKING);
    actor.send(reference('trained/run', diverged));
    expect(selectChecks(actor.getSnapshot())).toEqual({ a: null, b: diverged });
    answer('B one');
    expect(selectPhase(actor.getSnapshot())).toBe('done');
    expect(selectChecks(actor.getSnapshot())).toEqual({ a: null, b: diverged });
  });

  it("B is A's model, not loaded again: A's check is B's", () => {
    const { actor, answer } = start();
    actor.send({ type: 'evaluation.start', setup: setupOf(['q1'], 'base/model') });
    actor.send(readyChecking('base/model'));
    actor.send(reference('base/model', agreed));
    answer('A one');
    expect(selectChecks(actor.getSnapshot())).toEqual({ a: agreed, b: agreed });
  });

  it('a new start forgets the last checks', () => {
    const { actor, answer } = start();
    actor.send({ type: 'evaluation.start', setup: setupOf(['q1'], 'base/model') });
    actor.send(readyChecking('base/model'));
    actor.send(reference('base/model', agreed));
    answer('A one');
    answer('B one');
    expect(selectPhase(actor.getSnapshot())).toBe('done');
    actor.send({ type: 'evaluation.start', setup: setupOf(['q1']) });
    expect(selectChecks(actor.getSnapshot())).toEqual({ a: null, b: null });
  });
});

describe('evaluationMachine — the liveness rule (the chat’s): silence, not slowness, gives up', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  // Compare heard no heartbeat and waited 120 s for a dead worker (the chat waits 10 s).
  it('answering: a heartbeat every 2 s keeps it waiting; 10 s of silence → failed, the worker abandoned', () => {
    vi.useFakeTimers();
    const { actor, worker, ready } = start();
    actor.send({ type: 'evaluation.start', setup: setupOf(['q1']) });
    ready('base/model');
    expect(selectPhase(actor.getSnapshot())).toBe('answeringA');
    // A slow reply that beats: far longer than the silence allowed, still waiting.
    for (let t = 0; t < 5 * REPLY_SILENCE_MS; t += 2000) {
      vi.advanceTimersByTime(2000);
      actor.send({ type: 'worker.alive', message: { status: 'alive' } });
    }
    expect(selectPhase(actor.getSnapshot())).toBe('answeringA');
    // The worker dies: no more beats.
    vi.advanceTimersByTime(REPLY_SILENCE_MS - 1);
    expect(selectPhase(actor.getSnapshot())).toBe('answeringA');
    vi.advanceTimersByTime(1);
    expect(selectPhase(actor.getSnapshot())).toBe('failed');
    expect(actor.getSnapshot().context.error).toBe(
      'The model stopped responding: no word from it for 10 seconds. Retry to load the model again.',
    );
    expect(worker.posted.at(-1)).toEqual({ type: 'abandon', data: 'no reply to the comparison' });
  });

  it('loading: the load silence allowed (a session is created synchronously), heartbeats restart it', () => {
    vi.useFakeTimers();
    const { actor, worker } = start();
    actor.send({ type: 'evaluation.start', setup: setupOf(['q1']) });
    vi.advanceTimersByTime(LOAD_SILENCE_MS - 1000);
    actor.send({ type: 'worker.alive', message: { status: 'alive' } });
    vi.advanceTimersByTime(LOAD_SILENCE_MS - 1000);
    expect(selectPhase(actor.getSnapshot())).toBe('loadingA');
    vi.advanceTimersByTime(1000);
    expect(selectPhase(actor.getSnapshot())).toBe('failed');
    expect(actor.getSnapshot().context.error).toBe(
      'The model stopped responding: no word from it for 30 seconds. Retry to load the model again.',
    );
    expect(worker.posted.at(-1)).toMatchObject({ type: 'abandon' });
  });
});
