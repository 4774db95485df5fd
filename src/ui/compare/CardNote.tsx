/**
 * After a comparison is saved in this browser: "Saved in this browser", and, when one of A and B
 * is a trained run's own model, its scores sent to that run's model card (PUT
 * /runs/{id}/evaluation, TanStack Query) with the answer said beside it — "Scores added to
 * <run>'s model card", or the service's own error. The saved evaluation stays whatever the card's
 * answer: it is in IndexedDB before anything is sent. Loaded lazily by the Compare view (a
 * default export): the view's chunk importing useMutation made it a chunk of its own, named in
 * the entry's preload list, past the first-load budget.
 */
import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { CompareServices } from '../../actors/compare-services';
import type { EvaluationRecord } from '../../shared/evaluation';
import { errorMessage } from '../../shared/errors';
import type { TrainedModel } from '../../shared/training-api';
import { cardScores, type SideFacts } from './card-scores';

interface Saved {
  /** The record as it was saved. */
  record: EvaluationRecord;
  /** The run whose card takes it (null: no trained run's model in it). */
  runName: string | null;
}

/**
 * Sends each finished comparison's scores once, when the store says it is saved (`saves` grows):
 * not again when the view is opened anew on an older save. Always mounted beside the view (hidden
 * while a comparison runs), so that it sees each save.
 */
export default function CardNote({
  compare,
  saves,
  record,
  facts,
  trained,
  hidden,
  since,
}: {
  compare: CompareServices;
  saves: number;
  /** The saves when the view opened: later ones are sent (this chunk may load after one). */
  since: number;
  record: EvaluationRecord | null;
  facts: Record<'a' | 'b', SideFacts>;
  trained: readonly TrainedModel[];
  hidden: boolean;
}) {
  const send = useMutation(compare.mutations.runEvaluation());
  const handled = useRef(since);
  const [saved, setSaved] = useState<Saved | null>(null);
  const { mutate, reset } = send;
  useEffect(() => {
    if (saves === handled.current || !record) return;
    handled.current = saves;
    const target = cardScores(record, facts, trained, Date.now());
    reset();
    setSaved({ record, runName: target?.runName ?? null });
    if (target && record.status === 'done')
      mutate({ runId: target.runId, evaluation: target.evaluation });
    // Only a new save sends: the record and the facts are read as they are then.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [saves]);
  if (!saved || hidden) return null;
  const run = saved.runName;
  const finished = saved.record.status === 'done';
  let card: string | null = null;
  if (run && !finished) card = `Not added to ${run}'s model card: only a finished comparison is.`;
  else if (run && send.isPending) card = `Adding the scores to ${run}'s model card…`;
  else if (run && send.data?.card === 'rewritten') card = `Scores added to ${run}'s model card.`;
  else if (run && send.data)
    card = `Scores sent to ${run}, but its model card was kept as it was: ${send.data.reason ?? 'no reason given'}.`;
  const failed = run && finished && send.isError;
  return (
    <p className={failed ? 'chat-error' : 'compare-note'} role={failed ? 'alert' : 'status'}>
      Saved in this browser.{' '}
      {failed
        ? `The scores were not added to ${run}'s model card: ${errorMessage(send.error)}`
        : card}
    </p>
  );
}
