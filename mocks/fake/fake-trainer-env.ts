/**
 * The trainer's environment in mock mode, with the interface the service's TrainerEnv gives its
 * routes (`TrainerDomain`, src/shared/service-domain.ts) and `settingUp`: the packages are ready
 * (torch 2.13, CPU only) or missing; a set-up prints one line per GET /trainer/setup, then
 * succeeds.
 */
import { busy } from '../../src/shared/domain-errors';
import type { TrainerDomain } from '../../src/shared/service-domain';
import {
  TRAINER_PACKAGES,
  idleTrainerSetup,
  type TrainerInfo,
  type TrainerSetup,
} from '../../src/shared/training-api';
import { trainingMessages } from '../../src/shared/training-messages';

const READY_PACKAGES: Record<(typeof TRAINER_PACKAGES)[number], string> = {
  torch: '2.13.0+cpu',
  transformers: '5.18.0',
  peft: '0.21.0',
  accelerate: '1.15.0',
  onnx: '1.23.0',
  onnxruntime: '1.30.0',
  'onnx-ir': '1.0.0',
};

const SETUP_LINES = [
  'Creating the trainer environment in .venv',
  'Processing torch-2.13.0+cpu',
  'Processing transformers-5.18.0',
  'Successfully installed accelerate onnx onnxruntime peft torch transformers',
];

export class FakeTrainerEnv implements TrainerDomain {
  private state: TrainerSetup = idleTrainerSetup();

  constructor(
    private ready: boolean,
    /** Whether a training run is active (the set-up waits for none). */
    private readonly runActive: () => boolean,
  ) {}

  get settingUp(): boolean {
    return this.state.state === 'running';
  }

  /** The set-up's state; a running one prints its next line first (one per poll). */
  setup(): TrainerSetup {
    if (this.state.state === 'running') {
      const next = SETUP_LINES[this.state.lines.length];
      if (next) this.state.lines.push(next);
      if (this.state.lines.length >= SETUP_LINES.length) {
        this.state = {
          ...this.state,
          state: 'succeeded',
          exit_code: 0,
          ended_at: new Date().toISOString(),
        };
        this.ready = true;
      }
    }
    return this.snapshot();
  }

  info(): Promise<TrainerInfo> {
    return Promise.resolve({
      python: '/home/you/llm-studio/.venv/bin/python',
      python_version: '3.11.7',
      source: 'venv',
      packages: this.ready
        ? READY_PACKAGES
        : Object.fromEntries(TRAINER_PACKAGES.map((name) => [name, null])),
      missing: this.ready ? [] : [...TRAINER_PACKAGES],
      device: { kind: 'cpu', gpus: [] },
      setup: this.snapshot(),
    });
  }

  startSetup(): TrainerSetup {
    if (this.settingUp) throw busy(trainingMessages.setupRunning());
    if (this.runActive()) throw busy(trainingMessages.setupDuringRun());
    this.state = { ...idleTrainerSetup(), state: 'running', started_at: new Date().toISOString() };
    return this.snapshot();
  }

  /** Back to the packages of `ready` and no set-up (between tests). */
  reset(ready: boolean): void {
    this.ready = ready;
    this.state = idleTrainerSetup();
  }

  private snapshot(): TrainerSetup {
    return { ...this.state, lines: [...this.state.lines] };
  }
}
