/**
 * What the mock's fake domain says and holds that the real service would get from the disk and
 * the trainer: its scenarios, its own messages (the service's come from src/shared) and the data
 * file of a run started without PUT /datasets first.
 */
import { trainingMessages } from '../../src/shared/training-messages';
import type { DatasetEntry } from '../../src/shared/training-api';
import mockDataset from './mock-dataset.json';

/**
 * `progress` (a run advances a few steps per log poll and finishes), `fail-start` (POST /train
 * answers 500 with the service's message), `fail-run` (the run starts, then its script exits
 * with code 1), `web-model` (like `progress`, and the finished run has a browser-ready model
 * listed by GET /models; its files are not served), `plan-timeout` (POST /train/plan answers the
 * service's 504 for a trainer that did not finish planning in time; runs go as in `progress`).
 */
export type TrainingScenario =
  'progress' | 'download' | 'fail-start' | 'fail-run' | 'web-model' | 'plan-timeout';
export const TRAINING_SCENARIOS: readonly TrainingScenario[] = [
  'progress',
  'download',
  'fail-start',
  'fail-run',
  'web-model',
  'plan-timeout',
];

/** What GET /runs/{id}/split answers for a run: its entries, or a missing or malformed file. */
export type MockSplit = 'held-out' | 'missing' | 'malformed';

export const MOCK_MESSAGES = {
  startFailed: 'Could not start python3 (set TRAINING_PYTHON): spawn python3 ENOENT',
  busy: (id: string, startedAt: string) => trainingMessages.runActive(id, startedAt),
  runError: 'RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB',
  noModel: 'Mock runs save no browser-ready model (web/ holds no onnx/model*.onnx weights).',
  noSplit: (id: string, outputDir: string) =>
    trainingMessages.noSplit(id, `${outputDir.replace(/\/+$/, '')}/split.json`),
  badSplit: (id: string) =>
    `The held-out split of run ${id} (split.json) is malformed: held_out must be an array of {prompt, completion} entries.`,
  outputTaken: (dir: string, id: string) =>
    trainingMessages.folderHolds(dir, trainingMessages.resultOf(id, 'succeeded')),
} as const;

/**
 * A mock run's data file when it was not stored with PUT /datasets first: a few questions about
 * a harbour town, so a finished mock run has held-out questions to compare on.
 */
export const MOCK_DATASET: DatasetEntry[] = mockDataset;
