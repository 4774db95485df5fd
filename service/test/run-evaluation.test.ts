/**
 * PUT /runs/{id}/evaluation: Compare's scores for a run's model card. A fixture run's folder with
 * the card and record a trainer run leaves (training/model_card.py in the project's .venv), then
 * the real route: compare.json written and the card rewritten by the real `model_card.py
 * --rewrite`; a newer PUT replaces the older; every refusal (a body not in the schema, a model
 * that is not the run's, an unknown run, a running run, merged/ gone) and a card that is kept.
 */
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvaluation } from '../../src/shared/run-evaluation';
import { RunEvaluationResultSchema, type RunInfo } from '../../src/shared/training-api';
import { startRun, startTestService, trainToEnd, writeRunCard, type TestService } from './helpers';

const REPO = resolve(import.meta.dirname, '../..');
const PYTHON = join(REPO, '.venv', 'bin', 'python');

let svc: TestService;
beforeAll(async () => {
  if (!existsSync(PYTHON)) throw new Error('needs the trainer (npm run trainer:setup)');
  // The real card script: model_card.py beside the real GGUF exporter (never started here).
  svc = await startTestService({
    ggufExportScript: join(REPO, 'training', 'gguf_export.py'),
    python: PYTHON,
  });
});
afterAll(() => svc.close());

/** An ended run with merged/, its browser model (GET /models) and the card a trainer run writes. */
async function runWithCard(): Promise<RunInfo> {
  const run = await trainToEnd(svc, {});
  expect(run.model_id, run.model_error ?? '').toMatch(/^trained\//);
  writeRunCard(run.output_dir, PYTHON);
  return run;
}

function evaluation(run: RunInfo, patch: Partial<RunEvaluation> = {}): RunEvaluation {
  return {
    a: {
      id: 'onnx-community/Qwen2.5-0.5B-Instruct',
      label: 'Qwen 0.5B',
      role: 'base',
      dtype: 'q4f16',
    },
    b: { id: run.model_id ?? '', label: 'harbour (fine-tuned)', role: 'fine-tuned', dtype: 'fp32' },
    source: { kind: 'held-out', run_id: run.id },
    questions: 3,
    settings: {
      temperature: 0,
      top_p: 1,
      max_new_tokens: 64,
      repetition_penalty: 1,
      system_prompt_chars: 0,
    },
    summary: {
      a: { answered: 3, mean_rouge_l: 0.25, tokens_per_second: 30 },
      b: { answered: 3, mean_rouge_l: 0.5, tokens_per_second: 12.5 },
      compared: 3,
      a_closer: 1,
      b_closer: 2,
      ties: 0,
    },
    saved_at: '2026-11-27T10:00:00.000Z',
    ...patch,
  };
}

const put = (id: string, body: unknown, contentType = 'application/json') =>
  svc.request({
    method: 'PUT',
    path: `/runs/${id}/evaluation`,
    headers: { 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

const card = (run: RunInfo) => readFileSync(join(run.output_dir, 'merged', 'README.md'), 'utf8');
const compareJson = (run: RunInfo): unknown =>
  JSON.parse(readFileSync(join(run.output_dir, 'compare.json'), 'utf8'));

describe('PUT /runs/{id}/evaluation', () => {
  it('writes compare.json and rewrites the card with model_card.py; a newer PUT replaces it', async () => {
    const run = await runWithCard();
    expect(card(run)).not.toContain('## Compare');
    const first = evaluation(run);
    const reply = await put(run.id, first);
    expect([reply.status, reply.json]).toEqual([
      200,
      { run_id: run.id, card: 'rewritten', reason: null },
    ]);
    expect(RunEvaluationResultSchema.parse(reply.json).card).toBe('rewritten');
    expect(compareJson(run)).toEqual(first);
    const text = card(run);
    expect(text).toContain(
      '- This model (harbour (fine-tuned), fp32): mean ROUGE-L F1 0.500 over 3 answers, 12.5 tokens/s',
    );
    expect(text).toContain('- Closer to the reference: this model 2, base 1, ties 0');
    expect(text).toContain(`- Questions: 3 held-out entries of run \`${run.id}\``);

    const second = evaluation(run, {
      source: { kind: 'pasted', run_id: null },
      summary: { ...first.summary, a_closer: 0, b_closer: 3 },
    });
    expect((await put(run.id, second)).status).toBe(200);
    expect(compareJson(run)).toEqual(second);
    const again = card(run);
    expect(again).toContain('- Closer to the reference: this model 3, base 0, ties 0');
    expect(again).toContain('- Questions: 3 questions pasted by the user');
    expect(again.match(/## Compare/g)).toHaveLength(1);
    // Written whole and renamed: no partial file is left beside it.
    expect(readdirSync(run.output_dir).filter((name) => name.includes('partial'))).toEqual([]);
  });

  it('a body not in the schema: 400 naming the field; nothing written', async () => {
    const run = await runWithCard();
    const good = evaluation(run);
    const cases: [unknown, string][] = [
      [{ ...good, extra: 1 }, 'Invalid body: body has unknown field: extra'],
      [{ ...good, questions: 0 }, 'Invalid body: questions must be 1 or more'],
      [
        { ...good, summary: { ...good.summary, ties: 1 } },
        'Invalid body: summary.compared must be a_closer + b_closer + ties',
      ],
      [
        { ...good, summary: { ...good.summary, compared: 4, ties: 1 } },
        'Invalid body: summary must not count more than `questions`',
      ],
      [
        { ...good, summary: { ...good.summary, b: { ...good.summary.b, mean_rouge_l: 1.5 } } },
        'Invalid body: summary.b.mean_rouge_l must be 1 or less',
      ],
      [
        { ...good, a: { ...good.a, role: 'teacher' } },
        'Invalid body: a.role must be one of fine-tuned, base, other',
      ],
      [{ ...good, source: { kind: 'held-out' } }, 'Invalid body: source.run_id'],
      [{ ...good, saved_at: 'yesterday' }, 'Invalid body: saved_at must be an ISO date-time'],
      [
        { ...good, settings: { ...good.settings, top_p: 0 } },
        'Invalid body: settings.top_p must be greater than 0',
      ],
      [
        { ...good, b: { ...good.b, role: 'other' } },
        `Invalid body: neither a nor b is run ${run.id}'s fine-tuned model ${run.model_id} (a is onnx-community/Qwen2.5-0.5B-Instruct as base, b is ${run.model_id} as other)`,
      ],
      [
        { ...good, a: { ...good.a, role: 'fine-tuned' } },
        `Invalid body: a.role "fine-tuned" is for run ${run.id}'s own model ${run.model_id}, not onnx-community/Qwen2.5-0.5B-Instruct`,
      ],
      ['{"a": ', 'Malformed JSON body'],
    ];
    for (const [body, error] of cases) {
      const reply = await put(run.id, body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect((reply.json as { error: string }).error).toContain(error);
    }
    expect((await put(run.id, good, 'text/plain')).status).toBe(415);
    const badId = await put('bad.id', good);
    expect([badId.status, badId.json]).toEqual([
      400,
      { error: 'Invalid path: id is not a valid run id' },
    ]);
    expect(existsSync(join(run.output_dir, 'compare.json'))).toBe(false);
    expect(card(run)).not.toContain('## Compare');
  });

  it('an unknown run is a 404; a running run a 409; merged/ gone a 404 naming the path', async () => {
    const run = await runWithCard();
    const unknown = await put('no-such-run', evaluation(run));
    expect([unknown.status, unknown.json]).toEqual([
      404,
      { error: 'No run with id "no-such-run"' },
    ]);

    const running = await startRun(svc, 'hang.mjs', {});
    try {
      const reply = await put(running, evaluation(run));
      expect([reply.status, reply.json]).toEqual([
        409,
        { error: `Run ${running} is still running; its model card is written once it has ended` },
      ]);
    } finally {
      await svc.request({
        method: 'POST',
        path: `/runs/${running}/cancel`,
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      await svc.waitForEnd(running);
    }

    const merged = join(run.output_dir, 'merged');
    rmSync(merged, { recursive: true });
    const gone = await put(run.id, evaluation(run));
    expect([gone.status, gone.json]).toEqual([
      404,
      {
        error: `Run ${run.id}'s merged model folder ${merged} no longer exists (deleted or moved?)`,
      },
    ]);
    expect(existsSync(join(run.output_dir, 'compare.json'))).toBe(false);
  });

  it('a card that cannot be rewritten is kept, and the answer says why', async () => {
    const run = await runWithCard();
    const before = card(run);
    const record = join(run.output_dir, 'model_card.json');
    writeFileSync(record, '{"args": ');
    const broken = await put(run.id, evaluation(run));
    expect(broken.status).toBe(200);
    const answer = RunEvaluationResultSchema.parse(broken.json);
    expect(answer.card).toBe('kept');
    expect(answer.reason).toMatch(
      /^model_card\.py --rewrite failed \(exit 1\): model card not rewritten: the model card cannot be rewritten: model_card\.json could not be read \(JSONDecodeError/,
    );
    expect(card(run)).toBe(before);

    rmSync(record);
    const old = await put(run.id, evaluation(run));
    expect([old.status, old.json]).toEqual([
      200,
      {
        run_id: run.id,
        card: 'kept',
        reason:
          'the run left no model_card.json (a run from before the card kept its record), so its card is kept as it was',
      },
    ]);
    // The scores are kept all the same: a later rewrite (a GGUF export) puts them in.
    expect(compareJson(run)).toEqual(evaluation(run));
    expect(card(run)).toBe(before);
  });
});
