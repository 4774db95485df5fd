/**
 * The trainer's Python environment: which interpreter runs `.py` trainers (TRAINING_PYTHON, else
 * the project's `.venv`, else `python3`), what it has (training/trainer_info.py: package versions
 * and the device), and its set-up (`npm run trainer:setup`'s script, run with fixed arguments,
 * one at a time, never while a run is active).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import {
  TRAINER_PACKAGES,
  TrainerDeviceSchema,
  type TrainerInfo,
  idleTrainerSetup,
  type TrainerSetup,
} from '../../src/shared/training-api';
import * as z from 'zod/mini';
import { trainingMessages } from '../../src/shared/training-messages';
import type { ServiceConfig } from './config';
import { busy } from './errors';
import { LineAssembler } from './log-store';
import { endTree, ProcessTree } from './proc-tree';

/** Lines of the set-up's output kept (pip prints a few hundred). */
const SETUP_LINES = 2000;
/** GET /trainer answers from a cache this fresh (importing torch takes seconds). */
const INFO_TTL_MS = 60_000;
const INFO_TIMEOUT_MS = 90_000;

const InfoOutputSchema = z.object({
  python: z.nullable(z.string()),
  python_version: z.nullable(z.string()),
  packages: z.record(z.string(), z.nullable(z.string())),
  device: z.nullable(TrainerDeviceSchema),
});

export interface PythonChoice {
  command: string;
  source: TrainerInfo['source'];
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** The interpreter a `.py` trainer runs with. */
export async function choosePython(config: ServiceConfig): Promise<PythonChoice> {
  if (config.python) return { command: config.python, source: 'env' };
  const venvPython = join(config.venvDir, 'bin', 'python');
  if (await exists(venvPython)) return { command: venvPython, source: 'venv' };
  return { command: 'python3', source: 'system' };
}

/** Exit code 3 of the set-up script: `python3 -m venv` is unavailable. */
const VENV_MISSING_EXIT = 3;

export class TrainerEnv {
  private setupState: TrainerSetup = idleTrainerSetup();
  private setupChild: ChildProcess | null = null;
  private setupTree: ProcessTree | null = null;
  private setupEnded: Promise<void> = Promise.resolve();
  private cached: { at: number; info: Promise<Omit<TrainerInfo, 'setup'>> } | null = null;

  constructor(
    private readonly config: ServiceConfig,
    /** Whether a training run is active (the set-up waits for none). */
    private readonly runActive: () => boolean,
  ) {}

  get settingUp(): boolean {
    return this.setupState.state === 'running';
  }

  setup(): TrainerSetup {
    return { ...this.setupState, lines: [...this.setupState.lines] };
  }

  async info(): Promise<TrainerInfo> {
    const now = Date.now();
    if (!this.cached || now - this.cached.at > INFO_TTL_MS || this.settingUp)
      this.cached = { at: now, info: this.probe() };
    return { ...(await this.cached.info), setup: this.setup() };
  }

  /** Runs trainer_info.py with the chosen interpreter; a missing interpreter is "all missing". */
  private async probe(): Promise<Omit<TrainerInfo, 'setup'>> {
    const python = await choosePython(this.config);
    const none = Object.fromEntries(TRAINER_PACKAGES.map((p) => [p, null]));
    const fallback = {
      python: null,
      python_version: null,
      source: python.source,
      packages: none,
      missing: [...TRAINER_PACKAGES],
      device: null,
    };
    const output = await new Promise<string | null>((ok) => {
      let text = '';
      let child: ChildProcess;
      try {
        child = spawn(python.command, [this.config.infoScript], {
          stdio: ['ignore', 'pipe', 'ignore'],
          timeout: INFO_TIMEOUT_MS,
        });
      } catch {
        ok(null);
        return;
      }
      child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      child.once('error', () => ok(null));
      child.once('close', (code) => ok(code === 0 ? text : null));
    });
    if (output === null) return fallback;
    let parsed: z.infer<typeof InfoOutputSchema>;
    try {
      parsed = InfoOutputSchema.parse(JSON.parse(output.trim().split('\n').at(-1) ?? ''));
    } catch {
      return fallback;
    }
    const packages = { ...none, ...parsed.packages };
    return {
      python: parsed.python,
      python_version: parsed.python_version,
      source: python.source,
      packages,
      missing: TRAINER_PACKAGES.filter((p) => !packages[p]),
      device: parsed.device,
    };
  }

  /** Starts the set-up (pip into the project's `.venv`); its output is kept for GET /trainer/setup. */
  startSetup(): TrainerSetup {
    if (this.settingUp) throw busy(trainingMessages.setupRunning());
    if (this.runActive()) throw busy(trainingMessages.setupDuringRun());
    const [command, ...args] = this.config.setupCommand;
    if (!command) throw busy('No set-up command is configured.');
    this.setupState = {
      ...idleTrainerSetup(),
      state: 'running',
      started_at: new Date().toISOString(),
    };
    this.cached = null;
    const state = this.setupState;
    const note = (line: string) => {
      state.lines.push(line);
      if (state.lines.length > SETUP_LINES) state.lines.splice(0, state.lines.length - SETUP_LINES);
    };
    const finish = (code: number | null, reason: string | null) => {
      state.state = code === 0 ? 'succeeded' : 'failed';
      state.exit_code = code;
      state.ended_at = new Date().toISOString();
      if (code !== 0)
        state.error =
          reason ??
          (code === VENV_MISSING_EXIT
            ? (state.lines.at(-1) ?? 'python3 -m venv is not available.')
            : `The set-up failed (exit code ${String(code)}): ${state.lines.at(-1) ?? 'no output'}`);
      this.setupChild = null;
      this.cached = null;
    };
    let child: ChildProcess;
    try {
      child = spawn(command, args, {
        cwd: this.config.baseDir,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, TRAINER_VENV_DIR: this.config.venvDir },
      });
    } catch (error) {
      finish(
        null,
        `Could not start the set-up: ${error instanceof Error ? error.message : String(error)}`,
      );
      return this.setup();
    }
    this.setupChild = child;
    if (child.pid !== undefined) {
      this.setupTree = new ProcessTree(`setup-${child.pid}`);
      this.setupTree.setRoot(child.pid);
    }
    for (const stream of [child.stdout, child.stderr]) {
      const assembler = new LineAssembler(this.config.maxLineChars, note);
      stream?.on('data', (chunk: Buffer) => assembler.push(chunk));
      stream?.on('end', () => assembler.end());
    }
    this.setupEnded = new Promise((ok) => {
      child.once('error', (error) => {
        finish(null, `Could not start the set-up: ${error.message}`);
        ok();
      });
      child.once('close', (code) => {
        if (state.state === 'running') finish(code, null);
        ok();
      });
    });
    return this.setup();
  }

  /** Service shutdown: a set-up still going is ended with its whole process tree. */
  async shutdown(): Promise<void> {
    const tree = this.setupTree;
    if (this.setupChild && tree) {
      tree.scan();
      await endTree(tree, this.config.killGraceMs, () => undefined);
    }
    await this.setupEnded;
  }
}
