/**
 * POST /train/plan: the trainer run once with `--plan` and the request's flags (the interpreter
 * alone, never the launcher: one process reads the config, the tokenizer and the data), its last
 * stdout line `{"plan": {...}}` parsed. The trainer's `error: …` line is bad input; a trainer that
 * does not answer in time is ended (the shared `planTimedOut`, a 504).
 */
import type { ChildProcess } from 'node:child_process';
import * as z from 'zod/mini';
import { planTimedOut } from '../../src/shared/service-http';
import { TrainingPlanSchema, formatIssues, type TrainingPlan } from '../../src/shared/training-api';
import { badInput, launchFailed, unreadable } from './errors';
import type { SpawnFn } from './run-process';

/** Output kept from the planning process (its last lines matter). */
const KEEP_BYTES = 256 * 1024;

export interface PlanCommand {
  command: string;
  args: string[];
  /** Where it runs: the service's base folder, as a run does. */
  cwd: string;
  spawnFn: SpawnFn;
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
}

const PlanLineSchema = z.object({ plan: TrainingPlanSchema });

/** Runs the trainer's plan mode and returns its plan, or throws the error it reported. */
export async function runPlan({
  command,
  args,
  cwd,
  spawnFn,
  timeoutMs,
  env,
}: PlanCommand): Promise<TrainingPlan> {
  let child: ChildProcess;
  try {
    child = spawnFn(command, args, {
      cwd,
      shell: false,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PYTHONUNBUFFERED: '1', ...env },
    });
  } catch (error) {
    throw launchFailed(`Could not start ${command}: ${message(error)}`);
  }
  let stdout = '';
  let stderr = '';
  const keep = (text: string, chunk: Buffer) => (text + chunk.toString('utf8')).slice(-KEEP_BYTES);
  child.stdout?.on('data', (chunk: Buffer) => (stdout = keep(stdout, chunk)));
  child.stderr?.on('data', (chunk: Buffer) => (stderr = keep(stderr, chunk)));

  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    endGroup(child);
  }, timeoutMs);
  const code = await new Promise<number | null>((ok, fail) => {
    child.once('error', (error) =>
      fail(launchFailed(`Could not start ${command}: ${message(error)}`)),
    );
    child.once('close', (exitCode) => ok(exitCode));
  }).finally(() => clearTimeout(timer));
  if (timedOut) throw planTimedOut(timeoutMs);

  const lines = (text: string) =>
    text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean);
  const said = [...lines(stdout), ...lines(stderr)];
  const error = said.filter((l) => l.startsWith('error: ')).at(-1);
  if (error) throw badInput(error.slice('error: '.length));
  const last = lines(stdout).at(-1);
  if (code !== 0 || last === undefined)
    throw unreadable(
      `The trainer's plan ended with exit code ${code ?? 'none'}` +
        (said.length ? `: ${said.at(-1)}` : ' and printed nothing'),
    );
  let raw: unknown;
  try {
    raw = JSON.parse(last);
  } catch {
    throw unreadable(`The trainer's plan did not end with a JSON line: ${last.slice(0, 200)}`);
  }
  const parsed = z.safeParse(PlanLineSchema, raw);
  if (!parsed.success)
    throw unreadable(
      `The trainer's plan is malformed: ${formatIssues(parsed.error.issues, 'plan')}`,
    );
  return parsed.data.plan;
}

/** Ends a process started detached and anything it started (its own process group), at once. */
export function endGroup(child: ChildProcess) {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
