import { describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { TRAINING_PARAMS, type PlanResponse, type TrainRequest } from '../../shared/training-api';
import RunPlan, { gigabytes, memoryAdvice, planSummary, tooLongText } from './RunPlan';

const REQUEST: TrainRequest = {
  script_path: 'training/finetune.py',
  output_dir: 'service-data/outputs/lora',
  data_file: 'service-data/datasets/x.json',
  base_model: 'meta-llama/Llama-3.2-1B-Instruct',
  ...TRAINING_PARAMS,
};

function answer(totalBytes: number, deviceBytes: number | null = 24e9): PlanResponse {
  return {
    plan: {
      entries: 42,
      train: 36,
      held_out: 4,
      too_long: {
        count: 2,
        indices: [3, 9],
        message: '2 of 42 entries are longer than 256 tokens and were left out: raise Max length',
      },
      tokens: { max: 180, p95: 140, over_max_len: 2 },
      steps: 120,
      epochs: 3.3333,
      effective_batch: 1,
      parameters: 1.24e9,
      trainable_parameters: 1.1e7,
      device: 'cpu',
      precision: 'fp32',
      gradient_checkpointing: true,
      memory: { total_bytes: totalBytes },
    },
    device_memory_bytes: deviceBytes,
    device_name: "this computer's memory (CPU)",
  };
}

function renderPlan(node: ReactNode) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const wrap = (n: ReactNode) => <QueryClientProvider client={client}>{n}</QueryClientProvider>;
  const view = render(wrap(node));
  return { rerender: (n: ReactNode) => view.rerender(wrap(n)) };
}

describe('RunPlan', () => {
  it('the plan in one line, as the issue words it', () => {
    expect(planSummary(answer(9.8e9))).toBe(
      "36 entries to train on, 4 held out · longest 180 tokens (95th percentile 140), 2 longer than Max length (left out) · 120 steps ≈ 3.3 epochs · effective batch 1 · peak memory about 9.8 GB of the 24 GB of this computer's memory (CPU)",
    );
  });

  it('names the device readably, never its kind alone ("of the cuda")', () => {
    const gpu = answer(31e9, 80 * 1024 ** 3);
    gpu.plan.device = 'cuda';
    gpu.device_name = 'NVIDIA H100 80GB HBM3';
    expect(planSummary(gpu)).toMatch(
      /peak memory about 31 GB of the 86 GB of NVIDIA H100 80GB HBM3$/,
    );
    expect(planSummary(answer(9.8e9, null))).toMatch(
      /peak memory about 9\.8 GB \(this computer's memory \(CPU\)\)$/,
    );
  });

  it('loading, then the plan; no warning when it fits', async () => {
    let resolve: (value: PlanResponse) => void = () => {};
    const planRun = vi.fn(() => new Promise<PlanResponse>((ok) => (resolve = ok)));
    renderPlan(
      <RunPlan request={REQUEST} trainingUrl="http://x" planRun={planRun} debounceMs={5} />,
    );
    expect(screen.getByText(/Working out what the run will do/)).toBeInTheDocument();
    await waitFor(() => expect(planRun).toHaveBeenCalledTimes(1));
    resolve(answer(9.8e9));
    expect(await screen.findByText(/36 entries to train on/)).toBeInTheDocument();
    // Broke: the panel said how many were left out, not which.
    expect(
      screen.getByText(
        '2 of 42 entries are longer than 256 tokens and were left out (entries 3, 9): raise Max length',
      ),
    ).toBeInTheDocument();
    expect(screen.queryByRole('note')).not.toBeInTheDocument();
  });

  it('a warning naming both figures when it will not fit (not a refusal)', async () => {
    const planRun = vi.fn(() => Promise.resolve(answer(31e9, 24e9)));
    renderPlan(
      <RunPlan request={REQUEST} trainingUrl="http://x" planRun={planRun} debounceMs={5} />,
    );
    expect(await screen.findByRole('note')).toHaveTextContent(
      "This run needs about 31 GB at its peak, more than the 24 GB of this computer's memory (CPU)",
    );
  });

  it('the disk the run writes: in the summary, and a warning naming both figures when it will not fit', async () => {
    const full = answer(26e9, 80e9);
    full.plan.disk = {
      total_bytes: 44.5e9,
      checkpoint_bytes: 14.83e9,
      checkpoints_kept: 2,
      free_bytes: 30e9,
      fits: false,
    };
    expect(planSummary(full)).toMatch(/ · disk about 45 GB \(30 GB free\)$/);
    const planRun = vi.fn(() => Promise.resolve(full));
    renderPlan(
      <RunPlan
        request={{ ...REQUEST, method: 'full' }}
        trainingUrl="http://x"
        planRun={planRun}
        debounceMs={5}
      />,
    );
    expect(await screen.findByRole('note')).toHaveTextContent(
      'This run writes about 45 GB to disk at its peak (3 checkpoints of 15 GB while the newest is written, or the kept ones and the result), more than the 30 GB free where it saves: it will stop with "No space left on device". Free some space or use LoRA.',
    );
    // Megabytes under 0.1 GB (a tiny model's checkpoints), never "0 GB".
    expect([gigabytes(5.5e6), gigabytes(0.26e9), gigabytes(44.5e9)]).toEqual([
      '5.5 MB',
      '0.3 GB',
      '45 GB',
    ]);
    // Free space unknown: the estimate alone, no warning.
    const unknown = answer(9.8e9);
    unknown.plan.disk = { ...full.plan.disk, free_bytes: null, fits: null };
    expect(planSummary(unknown)).toMatch(/ · disk about 45 GB$/);
  });

  it('names at most ten left-out entries, then how many more', () => {
    const message =
      '13 of 40 entries are longer than 256 tokens and were left out: raise Max length';
    const indices = [1, 2, 3, 5, 8, 13, 21, 22, 23, 30, 31, 33, 39];
    expect(tooLongText({ count: 13, indices, message })).toBe(
      '13 of 40 entries are longer than 256 tokens and were left out (entries 1, 2, 3, 5, 8, 13, 21, 22, 23, 30 and 3 more): raise Max length',
    );
    expect(
      tooLongText({
        count: 1,
        indices: [4],
        message: '1 of 40 entries is longer than 256 tokens and was left out: raise Max length',
      }),
    ).toBe(
      '1 of 40 entries is longer than 256 tokens and was left out (entry 4): raise Max length',
    );
    expect(tooLongText({ count: 0, indices: [] })).toBeNull();
  });

  it('advises only what would change: never to turn on checkpointing that is already on', async () => {
    // Broke: "turn Gradient checkpointing on" was advised with checkpointing already on.
    const on = answer(31e9, 24e9);
    const planRun = vi.fn(() => Promise.resolve(on));
    renderPlan(
      <RunPlan request={REQUEST} trainingUrl="http://x" planRun={planRun} debounceMs={5} />,
    );
    const note = await screen.findByRole('note');
    expect(note).toHaveTextContent(/out-of-memory\. Lower Max length\.$/);
    expect(note).not.toHaveTextContent(/Gradient checkpointing/);
    const off = { ...on.plan, gradient_checkpointing: false };
    expect(memoryAdvice(off, REQUEST)).toBe('Lower Max length, or turn Gradient checkpointing on.');
    expect(memoryAdvice(off, { ...REQUEST, method: 'full', batch_size: 4 })).toBe(
      'Lower Max length or Batch size, use LoRA, or turn Gradient checkpointing on.',
    );
    expect(memoryAdvice(on.plan, { ...REQUEST, method: 'lora', batch_size: 1 })).toBe(
      'Lower Max length.',
    );
  });

  it("the service's refusal is shown", async () => {
    const planRun = vi.fn(() =>
      Promise.reject(new Error('data_file line 3: "completion" is missing')),
    );
    renderPlan(
      <RunPlan request={REQUEST} trainingUrl="http://x" planRun={planRun} debounceMs={5} />,
    );
    expect(await screen.findByRole('status')).toHaveTextContent(
      'Could not work out the run\'s plan: data_file line 3: "completion" is missing',
    );
  });

  it('asked at once, then again only when the form rests: quick changes skip their middle values', async () => {
    const planRun = vi.fn((request: TrainRequest) =>
      Promise.resolve({ ...answer(1e9), plan: { ...answer(1e9).plan, steps: request.max_steps } }),
    );
    const at = (steps: number) => (
      <RunPlan
        request={{ ...REQUEST, max_steps: steps }}
        trainingUrl="http://x"
        planRun={planRun}
        debounceMs={100}
      />
    );
    const { rerender } = renderPlan(at(10));
    rerender(at(20));
    rerender(at(30));
    expect(await screen.findByText(/30 steps/)).toBeInTheDocument();
    expect(planRun.mock.calls.map(([request]) => request.max_steps)).toEqual([10, 30]);
  });
});
