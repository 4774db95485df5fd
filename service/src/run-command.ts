/**
 * A request's command line: its paths confined to their roots, the interpreter and launcher, and
 * the trainer's flags from the training option table; and the trainer's `--plan` run over the
 * same checks (POST /train/plan).
 */
import { readFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { resolve } from 'node:path';
import type { PlanResponse, TrainRequest } from '../../src/shared/training-api';
import { trainerArgs } from '../../src/shared/training-fields';
import type { ServiceConfig } from './config';
import { confineDirectory, confineExistingFile, launchFor } from './paths';
import { runPlan } from './plan';
import type { SpawnFn } from './run-process';
import { choosePython } from './trainer-env';

/** A checked request: where it reads and writes, and what to run. */
export interface RunCommand {
  script: string;
  dataFile: string;
  outputDir: string;
  command: string;
  args: string[];
  /** The trainer's own flags (without the launcher's arguments). */
  flags: string[];
  python: string;
}

/** Step 1 of a start: request paths confined to their roots, and the command line. */
export async function checkRequest(
  config: ServiceConfig,
  request: TrainRequest,
): Promise<RunCommand> {
  const script = await confineExistingFile(
    'script_path',
    request.script_path,
    config.scriptRoots,
    config.baseDir,
  );
  const dataFile = await confineExistingFile(
    'data_file',
    request.data_file,
    config.dataRoots,
    config.baseDir,
  );
  const outputDir = await confineDirectory(
    'output_dir',
    request.output_dir,
    config.outputRoots,
    config.baseDir,
  );
  const python = (await choosePython(config)).command;
  const launch = await launchFor(script, python, config.launcher);
  // The options' flags come from the training table (training-fields.json): optional ones
  // only when sent, so trainers without them keep working.
  const flags = [
    ...['--base_model', request.base_model, '--data_file', dataFile],
    ...['--output_dir', outputDir],
    ...trainerArgs(request),
  ];
  const args = [...launch.args, ...flags];
  return { script, dataFile, outputDir, command: launch.command, args, flags, python };
}

/**
 * How many training processes a launcher starts: torchrun's `--nproc_per_node` (or
 * `--nproc-per-node`), accelerate's `--num_processes`, as `--flag N` or `--flag=N`; null when the
 * launcher names none or a non-number (torchrun's `gpu`, `auto`), and for no launcher.
 */
export function launcherProcesses(launcher: readonly string[] | null): number | null {
  if (!launcher) return null;
  const flags = ['--nproc_per_node', '--nproc-per-node', '--num_processes', '--num-processes'];
  for (const [i, arg] of launcher.entries()) {
    const [flag, inline] = arg.split(/=(.*)/s, 2);
    if (!flag || !flags.includes(flag)) continue;
    const value = inline ?? launcher[i + 1] ?? '';
    return /^[1-9]\d*$/.test(value) ? Number(value) : null;
  }
  return null;
}

/** An accelerate config file's top-level `key: value` (one line of YAML; quotes dropped). */
function configValue(text: string, key: string): string | null {
  const match = new RegExp(`^${key}:[ \\t]*['"]?([^'"#\\s]+)`, 'm').exec(text);
  return match?.[1] ?? null;
}

/**
 * What a launcher starts: its process count (the command line's, else its accelerate
 * `--config_file`'s `num_processes`) and whether it shards the model (accelerate's `--use_fsdp`,
 * or `distributed_type: FSDP` in its config file). The config file is read from the service's
 * base folder, where the run starts; one that cannot be read leaves both to the command line.
 */
export function launcherShape(
  launcher: readonly string[] | null,
  baseDir: string,
): { processes: number | null; sharded: boolean } {
  let processes = launcherProcesses(launcher);
  let sharded = launcher?.includes('--use_fsdp') ?? false;
  for (const [i, arg] of (launcher ?? []).entries()) {
    const [flag, inline] = arg.split(/=(.*)/s, 2);
    if (flag !== '--config_file' && flag !== '--config-file') continue;
    let text: string;
    try {
      text = readFileSync(resolve(baseDir, inline ?? launcher?.[i + 1] ?? ''), 'utf8');
    } catch {
      break;
    }
    sharded ||= configValue(text, 'distributed_type') === 'FSDP';
    const count = configValue(text, 'num_processes');
    if (processes === null && count && /^[1-9]\d*$/.test(count)) processes = Number(count);
  }
  return { processes, sharded };
}

/**
 * What the run would do (POST /train/plan): the same checks and flags as a start, run with
 * `--plan` by the interpreter alone (never the launcher), and the device's memory beside it.
 */
export async function planRun(
  config: ServiceConfig,
  request: TrainRequest,
  spawnFn: SpawnFn,
  timeoutMs: number,
): Promise<PlanResponse> {
  const checked = await checkRequest(config, request);
  const launch = await launchFor(checked.script, checked.python, null);
  const shape = launcherShape(config.launcher, config.baseDir);
  const plan = await runPlan({
    command: launch.command,
    args: [...launch.args, '--plan', ...checked.flags],
    cwd: config.baseDir,
    spawnFn,
    timeoutMs,
    env: {
      TRAINING_BASE_EXPORTS: config.baseExportsDir,
      HF_HUB_CACHE: config.hubCacheDir,
      // The plan runs in one process; the run's steps and effective batch count every process.
      WORLD_SIZE: String(shape.processes ?? 1),
      // FSDP splits weights, gradients and optimizer state across the processes (the estimate).
      ...(shape.sharded ? { TRAINING_SHARDED: 'fsdp' } : {}),
    },
  });
  const memory = plan.device_memory_bytes ?? (plan.device === 'cpu' ? totalmem() : null);
  return { plan, device_memory_bytes: memory, device_name: plan.device_name ?? plan.device };
}
