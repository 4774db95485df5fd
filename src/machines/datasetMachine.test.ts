import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { createActor, fromPromise, waitFor } from 'xstate';
import {
  datasetMachine,
  type DatasetInput,
  type GenerateChunkInput,
  type GenerateChunkOutput,
} from './datasetMachine';
import {
  selectPartialCount,
  selectPhase,
  selectProgress,
  selectRawOutput,
  selectRowProblems,
} from './datasetSelectors';
import { DatasetFailure } from '../shared/dataset/errors';

interface Call {
  input: GenerateChunkInput;
  signal: AbortSignal;
  settled: boolean;
  resolve: (text: string) => void;
  reject: (error: Error) => void;
}

/** A fake `generateChunk`: records each call, settled by the test. */
function fakeGenerator() {
  const calls: Call[] = [];
  const logic = fromPromise<GenerateChunkOutput, GenerateChunkInput>(
    ({ input, signal }) =>
      new Promise((resolve, reject) => {
        const call: Call = {
          input,
          signal,
          settled: false,
          resolve: (text) => {
            call.settled = true;
            resolve({ text });
          },
          reject: (error) => {
            call.settled = true;
            reject(error);
          },
        };
        calls.push(call);
      }),
  );
  const running = () => calls.filter((c) => !c.settled && !c.signal.aborted);
  return { calls, logic, running };
}

const pairs = (...prompts: string[]) =>
  JSON.stringify({
    entries: prompts.map((p) => ({
      prompt: p,
      completion: 'It began in 1894. It is held in October.',
    })),
  });

function start(input: DatasetInput = {}) {
  const gen = fakeGenerator();
  const actor = createActor(datasetMachine.provide({ actors: { generateChunk: gen.logic } }), {
    input,
  }).start();
  return { actor, gen };
}

const format = (
  over: Partial<{
    text: string;
    source: 'hosted' | 'local';
    hasToken: boolean;
    count: number;
  }> = {},
) => ({
  type: 'dataset.format' as const,
  name: 'Port Elsby',
  text: 'The festival began in 1894.',
  count: 3,
  source: 'hosted' as const,
  hasToken: true,
  ...over,
});

const flush = () => new Promise((r) => setTimeout(r, 0));
let errorLog: MockInstance<typeof console.error>;
beforeEach(() => {
  errorLog = vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => errorLog.mockRestore());

describe('the child protocol is typed', () => {
  it('done events name a chunk actor; a foreign id or output does not compile, a stale run is ignored', async () => {
    const { actor, gen } = start();
    actor.send(format());
    // Compile-time checks only (never sent): tsc fails if these become acceptable.
    const wrongEvents = () => {
      // @ts-expect-error -- not a chunk actor's id
      actor.send({ type: 'xstate.done.actor.other', actorId: 'other', output: { text: '[]' } });
      // @ts-expect-error -- the output of a chunk is `{ text }`
      actor.send({ type: 'xstate.done.actor.chunk-1-0', actorId: 'chunk-1-0', output: 42 });
    };
    expect(typeof wrongEvents).toBe('function');
    // A done event of a run that is not the current one changes nothing.
    actor.send({
      type: 'xstate.done.actor.chunk-9-0',
      actorId: 'chunk-9-0',
      output: { text: '[]' },
    });
    expect(actor.getSnapshot().context.chunks[0]?.status).toBe('running');
    gen.calls[0]?.resolve(pairs('When did the festival begin?'));
    await flush();
    expect(actor.getSnapshot().value).toBe('review');
  });
});

describe('refused requests (state unchanged, reason shown)', () => {
  it('idle → dataset.format with an empty text → idle with empty-input', () => {
    const { actor, gen } = start();
    actor.send(format({ text: '  \n ' }));
    expect(actor.getSnapshot().value).toBe('idle');
    expect(actor.getSnapshot().context.inputError?.kind).toBe('empty-input');
    expect(gen.calls).toHaveLength(0);
  });

  it('hosted without a token → no-token; local needs none', () => {
    const { actor, gen } = start();
    actor.send(format({ hasToken: false }));
    expect(actor.getSnapshot().context.inputError?.kind).toBe('no-token');
    actor.send(format({ hasToken: false, source: 'local' }));
    expect(actor.getSnapshot().value).toBe('generating');
    expect(actor.getSnapshot().context.inputError).toBeNull();
    expect(gen.calls[0]?.input.source).toBe('local');
  });

  it('a text over the limit → too-long', () => {
    const { actor } = start({ maxTextChars: 10 });
    actor.send(format());
    expect(actor.getSnapshot().context.inputError?.kind).toBe('too-long');
  });

  it("a pair count outside 1–100 or not whole → bad-count (the limit is the machine's, not only the UI's)", () => {
    const { actor, gen } = start();
    for (const count of [0, -3, 101, 2.5, Number.NaN]) {
      actor.send(format({ count }));
      expect(actor.getSnapshot().value).toBe('idle');
      expect(actor.getSnapshot().context.inputError?.kind).toBe('bad-count');
    }
    expect(actor.getSnapshot().context.inputError?.message).toBe(
      'The number of pairs must be a whole number from 1 to 100; got nothing.',
    );
    expect(gen.calls).toHaveLength(0);
    actor.send(format({ count: 100 }));
    expect(actor.getSnapshot().value).toBe('generating');
  });
});

describe('generation', () => {
  it('idle → generating → review: prompt built, progress per chunk, pairs validated', async () => {
    const { actor, gen } = start();
    actor.send(format());
    expect(selectPhase(actor.getSnapshot())).toBe('generating');
    const call = gen.calls[0];
    expect(call?.input).toMatchObject({ source: 'hosted', index: 0, pairs: 3 });
    expect(call?.input.prompt).toContain('titled "Port Elsby"');
    expect(call?.input.prompt).toContain('The festival began in 1894.');

    call?.input.onText('{"entries": [{"prompt": "a", "completion": "b"}');
    expect(selectProgress(actor.getSnapshot())).toEqual([
      { status: 'running', chars: 47, pairs: 1, pairsAsked: 3 },
    ]);
    call?.resolve(
      JSON.stringify({
        entries: [
          { prompt: 'When did it begin?', completion: 'In 1894. After a storm.' },
          { prompt: 'when did it begin', completion: 'Duplicate.' },
          { prompt: '', completion: 'No question.' },
        ],
      }),
    );
    await waitFor(actor, (s) => s.matches('review'));
    const { context } = actor.getSnapshot();
    expect(context.entries).toEqual([
      { prompt: 'When did it begin?', completion: 'In 1894. After a storm.' },
    ]);
    expect(context.invalid.map((x) => x.reason)).toEqual(['duplicate question', 'empty prompt']);
  });

  it('long text: chunks at paragraphs, at most `parallelism` at once, merged in order', async () => {
    const text = [
      'Para one is here.',
      'Para two is here.',
      'Para three is here.',
      'Para four.',
    ].join('\n\n');
    const { actor, gen } = start({ parallelism: { hosted: 2 }, chunkChars: { hosted: 20 } });
    actor.send(format({ text, count: 8 }));
    expect(actor.getSnapshot().context.chunks).toHaveLength(4);
    expect(gen.calls).toHaveLength(2);
    expect(gen.calls[1]?.input.prompt).toContain('(part 2 of 4)');
    gen.calls[1]?.resolve(pairs('Q2?'));
    await flush();
    expect(gen.calls).toHaveLength(3);
    expect(gen.running()).toHaveLength(2);
    gen.calls[0]?.resolve(pairs('Q1?', 'Q2?'));
    await flush();
    gen.calls[2]?.resolve(pairs('Q3?'));
    await flush();
    expect(gen.calls).toHaveLength(4);
    gen.calls[3]?.resolve(pairs('Q4?'));
    await waitFor(actor, (s) => s.matches('review'));
    const { context } = actor.getSnapshot();
    expect(context.entries.map((e) => e.prompt)).toEqual(['Q1?', 'Q2?', 'Q3?', 'Q4?']);
    expect(context.invalid).toEqual([
      expect.objectContaining({ chunk: 1, reason: 'duplicate question' }),
    ]);
  });

  it('the local model runs one chunk at a time', () => {
    const text = 'a'.repeat(1000) + '\n\n' + 'b'.repeat(1000);
    const { actor, gen } = start();
    actor.send(format({ text, source: 'local' }));
    expect(actor.getSnapshot().context.chunks).toHaveLength(2);
    expect(gen.calls).toHaveLength(1);
  });
});

describe('failures', () => {
  it('generating → request error → failed at once: others stopped, partial raw kept, logged', async () => {
    const text = 'Para one is here.\n\nPara two is here.';
    const { actor, gen } = start({ chunkChars: { hosted: 20 } });
    actor.send(format({ text }));
    gen.calls[1]?.input.onText('{"entries": [');
    gen.calls[0]?.reject(new DatasetFailure('auth', 'The access token was refused (HTTP 401).'));
    await waitFor(actor, (s) => s.matches('failed'));
    const snap = actor.getSnapshot();
    expect(snap.context.error).toMatchObject({ kind: 'auth', retryable: false });
    expect(snap.context.error?.message).toContain('The access token was refused (HTTP 401).');
    expect(gen.calls[1]?.signal.aborted).toBe(true);
    expect(selectRawOutput(snap)).toContain('{"entries": [');
    expect(errorLog).toHaveBeenCalledWith(expect.stringContaining('Format Input failed:'));
  });

  it('a stream cut short keeps its partial text for the raw download', async () => {
    const { actor, gen } = start();
    actor.send(format());
    gen.calls[0]?.reject(new DatasetFailure('stream-ended', 'ended', { partial: '[{"prompt":' }));
    await waitFor(actor, (s) => s.matches('failed'));
    expect(selectRawOutput(actor.getSnapshot())).toBe('[{"prompt":');
  });

  it.each([
    ['Sure! Here you go.', 'not-json', "The model's reply is not valid JSON"],
    ['{"questions": 3}', 'wrong-shape', "The model's JSON does not have the expected shape"],
    ['', 'empty-output', 'The model returned an empty reply.'],
    ['[{"prompt": "", "completion": ""}]', 'no-valid-entries', 'no usable pairs (1 invalid)'],
  ])('reply %j → failed with %s, raw kept', async (reply, kind, message) => {
    const { actor, gen } = start();
    actor.send(format());
    gen.calls[0]?.resolve(reply);
    await waitFor(actor, (s) => s.matches('failed'));
    const snap = actor.getSnapshot();
    expect(snap.context.error?.kind).toBe(kind);
    expect(snap.context.error?.message).toContain(message);
    expect(selectRawOutput(snap)).toBe(reply);
  });

  it('failed → dataset.retry reruns only the unfinished chunks → review', async () => {
    const { actor, gen } = start({ chunkChars: { hosted: 20 } });
    actor.send(format({ text: 'Para one is here.\n\nPara two is here.' }));
    gen.calls[0]?.resolve(pairs('Q1?'));
    gen.calls[1]?.resolve('not json at all');
    await waitFor(actor, (s) => s.matches('failed'));
    expect(actor.getSnapshot().context.error?.message).toContain('1 of 2 parts failed');
    expect(selectPartialCount(actor.getSnapshot())).toBe(1);
    actor.send({ type: 'dataset.retry' });
    expect(gen.calls).toHaveLength(3);
    expect(gen.calls[2]?.input.index).toBe(1);
    gen.calls[2]?.resolve(pairs('Q2?'));
    await waitFor(actor, (s) => s.matches('review'));
    expect(actor.getSnapshot().context.entries.map((e) => e.prompt)).toEqual(['Q1?', 'Q2?']);
  });

  it('failed → dataset.keepPartial → review with the pairs of the finished chunks', async () => {
    const { actor, gen } = start({ chunkChars: { hosted: 20 } });
    actor.send(format({ text: 'Para one is here.\n\nPara two is here.' }));
    gen.calls[0]?.resolve(pairs('Q1?'));
    gen.calls[1]?.resolve('nope');
    await waitFor(actor, (s) => s.matches('failed'));
    actor.send({ type: 'dataset.keepPartial' });
    expect(actor.getSnapshot().value).toBe('review');
    expect(actor.getSnapshot().context.entries).toHaveLength(1);
  });
});

describe('cancel', () => {
  it('generating → dataset.cancel → failed (cancelled): signal aborted, text kept; late progress ignored', async () => {
    const { actor, gen } = start();
    actor.send(format());
    gen.calls[0]?.input.onText('{"entr');
    actor.send({ type: 'dataset.cancel' });
    const snap = actor.getSnapshot();
    expect(snap.value).toBe('failed');
    expect(snap.context.error).toMatchObject({ kind: 'cancelled', retryable: true });
    expect(gen.calls[0]?.signal.aborted).toBe(true);
    gen.calls[0]?.input.onText('{"entries": late');
    expect(selectRawOutput(actor.getSnapshot())).toBe('{"entr');
    actor.send({ type: 'dataset.retry' });
    expect(gen.calls).toHaveLength(2);
    // Progress of the stopped run never lands on the new one.
    gen.calls[0]?.input.onText('stale');
    expect(actor.getSnapshot().context.chunks[0]?.raw).toBe('{"entr');
    gen.calls[1]?.resolve(pairs('Q?'));
    await waitFor(actor, (s) => s.matches('review'));
  });
});

describe('review', () => {
  async function reviewing() {
    const { actor, gen } = start();
    actor.send(format());
    gen.calls[0]?.resolve(pairs('Q1?', 'Q2?', 'Q3?'));
    await waitFor(actor, (s) => s.matches('review'));
    return actor;
  }

  it('edits a row, deletes a row, flags a row made invalid', async () => {
    const actor = await reviewing();
    actor.send({ type: 'dataset.entry.change', index: 1, entry: { prompt: 'Edited?' } });
    actor.send({ type: 'dataset.entry.delete', index: 0 });
    expect(actor.getSnapshot().context.entries.map((e) => e.prompt)).toEqual(['Edited?', 'Q3?']);
    actor.send({ type: 'dataset.entry.change', index: 1, entry: { completion: ' ' } });
    expect(selectRowProblems(actor.getSnapshot())).toEqual([null, 'empty completion']);
  });

  it('review → dataset.format starts over; an empty text keeps the dataset', async () => {
    const actor = await reviewing();
    actor.send(format({ text: '' }));
    expect(actor.getSnapshot().value).toBe('review');
    expect(actor.getSnapshot().context.entries).toHaveLength(3);
    actor.send(format());
    expect(actor.getSnapshot().value).toBe('generating');
    expect(actor.getSnapshot().context.entries).toHaveLength(0);
  });

  it('review → dataset.reset → idle, cleared', async () => {
    const actor = await reviewing();
    actor.send({ type: 'dataset.reset' });
    expect(actor.getSnapshot().value).toBe('idle');
    expect(actor.getSnapshot().context.entries).toEqual([]);
  });
});
