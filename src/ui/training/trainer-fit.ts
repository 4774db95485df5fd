/**
 * What the panel says about the trainer before a start: its one-line summary ("Trainer: torch
 * 2.13 · CPU only") and a warning when the base model is large for the device. A warning, never a
 * refusal: the estimates come from the model id and rules of thumb, not from the model itself.
 */
import type { TrainerInfo, TrainingMethod } from '../../shared/training-api';
import { formatBytes } from '../../shared/format-bytes';

/** Parameters, in billions, read from a Hub id or folder name ("Llama-3.2-3B-Instruct" → 3). */
export function parameterBillions(modelId: string): number | null {
  const name = modelId.split(/[\\/]/).pop() ?? modelId;
  const match = /(?:^|[-_.])(\d+(?:\.\d+)?)\s*([bBmM])(?=$|[-_.])/.exec(name);
  if (match) {
    const value = Number(match[1]);
    return match[2]?.toLowerCase() === 'm' ? value / 1000 : value;
  }
  // Names without a size: the families' known ones.
  if (/phi-3(?:\.5)?-mini/i.test(name)) return 3.8;
  return null;
}

/**
 * Bytes a run holds per parameter: full fine-tuning keeps fp32 weights, gradients and AdamW's two
 * moments (16 bytes); LoRA keeps the frozen weights (fp32 on a CPU, 16-bit on a GPU) and little else.
 */
function bytesPerParameter(method: TrainingMethod, gpu: boolean): number {
  if (method === 'full') return 16;
  return gpu ? 2.5 : 4.5;
}

/** "torch 2.13 · CPU only" / "torch 2.4 · CUDA: NVIDIA A100 (80 GB)" / "torch 2.4 · Apple MPS". */
export function trainerSummary(info: TrainerInfo): string {
  const torch = info.packages.torch;
  const version = torch ? `torch ${torch.split('+')[0]?.split('.').slice(0, 2).join('.')}` : null;
  const device = info.device;
  let where = 'device unknown';
  if (device?.kind === 'cpu') where = 'CPU only';
  else if (device?.kind === 'mps') where = 'Apple MPS';
  else if (device?.kind === 'cuda')
    where = `CUDA: ${device.gpus
      .map((g) => (g.memory_bytes ? `${g.name} (${formatBytes(g.memory_bytes)})` : g.name))
      .join(', ')}`;
  return [version, where].filter(Boolean).join(' · ');
}

/**
 * One sentence when the base model is large for the device, else null. With `planShown` the panel
 * shows the run's plan, whose memory estimate (from the model's own config) is the figure to
 * trust: this rough one is left out, and so is the warning that only compares it with the GPU.
 */
export function sizeWarning(
  info: TrainerInfo | undefined,
  baseModel: string,
  method: TrainingMethod,
  { planShown = false }: { planShown?: boolean } = {},
): string | null {
  const billions = parameterBillions(baseModel);
  if (billions === null || !info?.device) return null;
  const gpu = info.device.kind === 'cuda';
  const need = billions * 1e9 * bytesPerParameter(method, gpu);
  const size = `${baseModel} has about ${billions} billion parameters`;
  const memory = `${method === 'full' ? 'full fine-tuning' : 'LoRA'} needs about ${formatBytes(need)} of memory`;
  if (info.device.kind === 'cpu' && billions >= 0.5)
    return `${size}: on the CPU alone a run takes hours${planShown ? '' : `, and ${memory}`}. A smaller base model, or a machine with a GPU, is much faster.`;
  if (gpu && !planShown) {
    const largest = Math.max(0, ...info.device.gpus.map((g) => g.memory_bytes ?? 0));
    if (largest > 0 && need > largest)
      return `${size}: ${memory}, more than the largest GPU here has (${formatBytes(largest)}). ${
        method === 'full'
          ? // Under the default launcher every GPU holds the whole model: more GPUs alone do not help.
            'Choose LoRA or a smaller model, or shard the model across several GPUs with the FSDP launcher preset (TRAINING_LAUNCHER, see the service README).'
          : 'Choose a smaller model.'
      }`;
  }
  if (info.device.kind === 'mps' && billions >= 3)
    return `${size}: ${planShown ? 'on Apple MPS' : `${memory}; on Apple MPS`} expect a long run.`;
  return null;
}
