/**
 * Export of an evaluation: JSON (the record with every row scored and the summary) and CSV (one
 * row per question with both model ids and the settings repeated, so each line stands alone).
 */
import {
  scoreRows,
  summarize,
  type EvaluationRecord,
  type EvaluationSummary,
  type ScoredRow,
} from '../../shared/evaluation';

export interface EvaluationExport extends Omit<EvaluationRecord, 'rows'> {
  /** How each answer is scored. */
  score: 'ROUGE-L F1 over words (src/shared/rouge-l.ts)';
  rows: ScoredRow[];
  summary: EvaluationSummary;
}

export function toExport(record: EvaluationRecord): EvaluationExport {
  const rows = scoreRows(record.rows);
  return {
    ...record,
    score: 'ROUGE-L F1 over words (src/shared/rouge-l.ts)',
    rows,
    summary: summarize(rows),
  };
}

export const toJson = (record: EvaluationRecord): string =>
  JSON.stringify(toExport(record), null, 2);

/** RFC 4180: every field quoted, quotes doubled, lines ended by CRLF. */
const field = (value: string | number | null | undefined): string =>
  `"${value === null || value === undefined ? '' : String(value).replace(/"/g, '""')}"`;

const CSV_HEADER = [
  'question',
  'reference',
  'model_a',
  'answer_a',
  'score_a',
  'tokens_a',
  'seconds_a',
  'model_b',
  'answer_b',
  'score_b',
  'tokens_b',
  'seconds_b',
  'closer',
  'temperature',
  'top_p',
  'max_new_tokens',
  'repetition_penalty',
  'system_prompt',
];

export function toCsv(record: EvaluationRecord): string {
  const { settings } = record;
  const lines = scoreRows(record.rows).map((row) =>
    [
      row.prompt,
      row.reference,
      record.a.id,
      row.a?.text,
      row.scoreA,
      row.a?.numTokens,
      row.a?.seconds,
      record.b.id,
      row.b?.text,
      row.scoreB,
      row.b?.numTokens,
      row.b?.seconds,
      row.closer,
      settings.temperature,
      settings.topP,
      settings.maxNewTokens,
      settings.repetitionPenalty,
      settings.systemPrompt,
    ]
      .map(field)
      .join(','),
  );
  return [CSV_HEADER.map(field).join(','), ...lines].join('\r\n') + '\r\n';
}

/** Offers `text` as a file download. */
export function download(text: string, name: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
