/**
 * What the run will do, before the start (POST /train/plan): entries trained on and held out,
 * token lengths and those over Max length, steps and epochs, the effective batch, the peak
 * memory estimate against the device's and the disk the run writes against what is free, with a
 * warning when either will not fit. Asked again a moment
 * after the form stops changing; Start never waits for it. Its own chunk, with TanStack Query.
 */
import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import {
  TrainRequestSchema,
  parseOrThrow,
  type PlanResponse,
  type TrainRequest,
  type TrainingPlan,
} from '../../shared/training-api';
import { formatFieldNumber } from '../../shared/training-fields';

/** How long the form must rest before the plan is asked for. */
export const PLAN_DEBOUNCE_MS = 600;

export interface RunPlanProps {
  /** The start request as the form stands, or null while it cannot be sent (no dataset, errors). */
  request: TrainRequest | null;
  trainingUrl: string;
  /** POST /train/plan (the services' `trainingPlan`). */
  planRun: (request: TrainRequest, signal?: AbortSignal) => Promise<PlanResponse>;
  debounceMs?: number;
}

/** Bytes as "9.8 GB", or "5.5 MB" under 0.1 GB (decimal units, one decimal: an estimate). */
export function gigabytes(bytes: number): string {
  if (bytes < 1e8) return `${Math.round(bytes / 1e5) / 10} MB`;
  const gb = bytes / 1e9;
  return `${gb >= 10 ? Math.round(gb) : Math.round(gb * 10) / 10} GB`;
}

const plural = (n: number, one: string, many: string) =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** The plan in one line, as the panel shows it. */
export function planSummary({ plan, device_memory_bytes, device_name }: PlanResponse): string {
  const parts = [
    `${plural(plan.train, 'entry', 'entries')} to train on, ${plan.held_out} held out`,
    `longest ${plan.tokens.max} tokens (95th percentile ${plan.tokens.p95})` +
      (plan.too_long.count > 0 ? `, ${plan.too_long.count} longer than Max length (left out)` : ''),
    `${plural(plan.steps, 'step', 'steps')} ≈ ${formatFieldNumber(Math.round(plan.epochs * 10) / 10)} epochs`,
    `effective batch ${plan.effective_batch}`,
    `peak memory about ${gigabytes(plan.memory.total_bytes)}` +
      (device_memory_bytes !== null
        ? ` of the ${gigabytes(device_memory_bytes)} of ${device_name ?? plan.device}`
        : ` (${device_name ?? plan.device})`),
  ];
  if (plan.disk)
    parts.push(
      `disk about ${gigabytes(plan.disk.total_bytes)}` +
        (plan.disk.free_bytes !== null ? ` (${gigabytes(plan.disk.free_bytes)} free)` : ''),
    );
  return parts.join(' · ');
}

/** How many of the left-out entries the panel names before "and N more". */
export const TOO_LONG_LISTED = 10;

/**
 * The trainer's too-long sentence with the entries it left out named, as the trainer's log and
 * split.json's too_long_indices number them: "3 of 40 entries are longer than 256 tokens and were
 * left out (entries 4, 9, 17): raise Max length"; past TOO_LONG_LISTED, "… and N more".
 */
export function tooLongText({ message, indices }: TrainingPlan['too_long']): string | null {
  if (!message) return null;
  if (indices.length === 0) return message;
  const shown = indices.slice(0, TOO_LONG_LISTED).join(', ');
  const more = indices.length - TOO_LONG_LISTED;
  const list = `${indices.length === 1 ? 'entry' : 'entries'} ${shown}${more > 0 ? ` and ${more} more` : ''}`;
  const advice = message.lastIndexOf(': raise Max length');
  return advice >= 0
    ? `${message.slice(0, advice)} (${list})${message.slice(advice)}`
    : `${message} (${list})`;
}

/**
 * What would lower the peak, naming only the settings that would change: Batch size when above 1,
 * LoRA for full fine-tuning, Gradient checkpointing when it is off.
 */
export function memoryAdvice(plan: TrainingPlan, request: TrainRequest): string {
  const clauses = [
    (request.batch_size ?? 1) > 1 ? 'Lower Max length or Batch size' : 'Lower Max length',
  ];
  if (request.method === 'full') clauses.push('use LoRA');
  if (!plan.gradient_checkpointing) clauses.push('turn Gradient checkpointing on');
  const last = clauses.pop();
  return clauses.length ? `${clauses.join(', ')}, or ${last}.` : `${last}.`;
}

function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

export default function RunPlan({
  request,
  trainingUrl,
  planRun,
  debounceMs = PLAN_DEBOUNCE_MS,
}: RunPlanProps) {
  // The key is the request's text: a re-render with equal values asks nothing new.
  const text = useDebounced(request ? JSON.stringify(request) : null, debounceMs);
  const plan = useQuery({
    queryKey: ['training', 'plan', trainingUrl, text],
    queryFn: ({ signal }) => {
      if (text === null) throw new Error('The form has no request to plan yet.');
      const asked = parseOrThrow(TrainRequestSchema, JSON.parse(text), 'plan request');
      return planRun(asked, signal);
    },
    enabled: text !== null,
    retry: false,
    staleTime: 30_000,
  });
  if (request === null) return null;
  return (
    <section className="training-plan" aria-label="What the run will do" aria-live="polite">
      {plan.isPending || text === null ? (
        <p className="training-plan-loading">Working out what the run will do…</p>
      ) : plan.error ? (
        <p className="training-plan-error" role="status">
          Could not work out the run&apos;s plan: {plan.error.message}
        </p>
      ) : (
        <PlanView data={plan.data} request={request} refreshing={plan.isFetching} />
      )}
    </section>
  );
}

function PlanView({
  data,
  request,
  refreshing,
}: {
  data: PlanResponse;
  request: TrainRequest;
  refreshing: boolean;
}) {
  const { plan, device_memory_bytes } = data;
  const overflows = device_memory_bytes !== null && plan.memory.total_bytes > device_memory_bytes;
  const tooLong = tooLongText(plan.too_long);
  return (
    <>
      <p className="training-plan-summary" aria-busy={refreshing}>
        <strong>Plan:</strong> {planSummary(data)}
      </p>
      {tooLong && <p className="training-hint">{tooLong}</p>}
      {overflows && (
        <p className="training-warning" role="note">
          This run needs about {gigabytes(plan.memory.total_bytes)} at its peak, more than the{' '}
          {gigabytes(device_memory_bytes)} of {data.device_name ?? plan.device}: it will probably
          fail with out-of-memory. {memoryAdvice(plan, request)}
        </p>
      )}
      {plan.disk?.fits === false && plan.disk.free_bytes !== null && (
        <p className="training-warning" role="note">
          This run writes about {gigabytes(plan.disk.total_bytes)} to disk at its peak (
          {plan.disk.checkpoints_kept + 1} checkpoints of {gigabytes(plan.disk.checkpoint_bytes)}{' '}
          while the newest is written, or the kept ones and the result), more than the{' '}
          {gigabytes(plan.disk.free_bytes)} free where it saves: it will stop with &quot;No space
          left on device&quot;. Free some space{request.method === 'full' ? ' or use LoRA' : ''}.
        </p>
      )}
    </>
  );
}
