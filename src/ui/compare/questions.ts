/**
 * Questions typed or pasted into Compare: a JSON array of {prompt, completion} entries (the
 * dataset format), or one question per line, optionally `question<TAB>reference`. References
 * are optional; a question without one is answered but not scored.
 */
import * as z from 'zod/mini';
import { formatIssues, type DatasetEntry } from '../../shared/training-api';
import type { EvalQuestion } from '../../shared/evaluation';

export type ParsedQuestions =
  | { ok: true; questions: EvalQuestion[] }
  /** `empty`: nothing written yet (a hint, not an error). */
  | { ok: false; error: string; empty?: boolean };

const JsonQuestions = z.array(z.object({ prompt: z.string(), completion: z.optional(z.string()) }));

export const fromEntries = (entries: readonly DatasetEntry[]): EvalQuestion[] =>
  entries.map((e) => ({ prompt: e.prompt, reference: e.completion }));

export function parseQuestions(text: string): ParsedQuestions {
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) {
    let data: unknown;
    try {
      data = JSON.parse(trimmed);
    } catch (error) {
      return {
        ok: false,
        error: `The questions look like JSON but do not parse (${error instanceof Error ? error.message : String(error)}). Fix the JSON, or write one question per line.`,
      };
    }
    const parsed = z.safeParse(JsonQuestions, data);
    if (!parsed.success)
      return {
        ok: false,
        error: `The JSON must be an array of {prompt, completion} entries: ${formatIssues(parsed.error.issues, 'questions')}.`,
      };
    const questions = parsed.data
      .filter((e) => e.prompt.trim() !== '')
      .map((e) => ({ prompt: e.prompt.trim(), reference: e.completion?.trim() || null }));
    return questions.length > 0
      ? { ok: true, questions }
      : { ok: false, error: 'The JSON array has no entries with a prompt.' };
  }
  const questions = trimmed
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const tab = line.indexOf('\t');
      if (tab < 0) return { prompt: line, reference: null };
      return { prompt: line.slice(0, tab).trim(), reference: line.slice(tab + 1).trim() || null };
    })
    .filter((q) => q.prompt !== '');
  return questions.length > 0
    ? { ok: true, questions }
    : {
        ok: false,
        empty: true,
        error:
          'No questions yet: write one per line (question, a tab, then its reference answer if you have one).',
      };
}
