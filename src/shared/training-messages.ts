/**
 * The training service's refusals, worded once: the service (service/src) and the MSW handlers of
 * mock mode (mocks/training-handlers.ts) both say these, and tests/node/training-contract.test.ts
 * runs the same cases against both, so the mock cannot drift from the service.
 */
export const trainingMessages = {
  notInHubCache: (dir: string, id: string) =>
    `The Hub cache in ${dir} holds no model ${id} (see GET /hub-cache)`,
  hubModelInUse: (id: string) =>
    `${id} is the base model of the run going now: it can be removed from the Hub cache once that run has ended`,
  runActive: (id: string, startedAt: string) =>
    `A training run is already in progress (run ${id}, started ${startedAt}). Cancel it or wait for it to finish before starting another.`,
  settingUp: () =>
    'The trainer is being set up (POST /trainer/setup); start the run once it has finished.',
  folderInUse: (dir: string, id: string) =>
    `Output folder ${dir} is in use by the running run ${id}; choose another output directory.`,
  folderHolds: (dir: string, what: string) =>
    `Output folder ${dir} already holds ${what}; choose another output directory or delete that folder first.`,
  resultOf: (id: string, state: string) => `the result of run ${id} (${state})`,
  noRun: (id: string) => `No run with id "${id}"`,
  notRunning: (id: string, state: string) => `Run ${id} is not running (it is ${state})`,
  tailAndOffset: () => 'Use either tail=N or offset=K&limit=L, not both',
  noSplit: (id: string, file: string) =>
    `Run ${id} held out no questions: ${file} does not exist (eval_fraction 0, a run that failed early, or a trainer that does not write it).`,
  setupRunning: () =>
    'The trainer is already being set up; wait for it to finish (GET /trainer/setup).',
  setupDuringRun: () =>
    'A training run is in progress; set up the trainer once it has ended (its packages are in use).',
  contentType: (method: string, got: string | undefined) =>
    `Content-Type must be application/json for ${method} requests (got "${got ?? 'none'}")`,
  noRoute: (method: string, path: string) => `No route ${method} ${path}`,
  noCheckpoint: (id: string, folder: string) =>
    `Run ${id} has no checkpoint to resume from (${folder})`,
  dataChanged: (file: string, id: string) =>
    `The data file ${file} changed since run ${id} started; resume would train on different data. Start a new run.`,
  dataUnreadable: (file: string, id: string, reason: string) =>
    `The data file ${file} of run ${id} cannot be read (${reason}); resume needs the data it started with. Start a new run.`,
  noDataHash: (id: string) =>
    `Run ${id} was started before the service recorded its data file's hash, so resume cannot check that the data is the same. Start a new run.`,
  notResumable: (id: string, state: string, dir: string) =>
    state === 'succeeded'
      ? `Run ${id} succeeded: its result is in ${dir}, so there is nothing to resume. Start a new run to train further.`
      : `Run ${id} is ${state}; only a run that failed, was cancelled or was interrupted can be resumed.`,
  folderTaken: (dir: string, id: string, other: string) =>
    `Output folder ${dir} of run ${id} has been used by run ${other} since; resuming would mix their files. Start a new run.`,
  /** The log line a resumed run starts with. */
  resumedFrom: (step: number) => `[service] resumed from step ${step}`,
  /** Why a succeeded run has no `web/`: the trainer's reason from `web.skipped.json`. */
  exportPublishedNothing: (reason: string) => `The browser export published nothing: ${reason}`,
} as const;

/**
 * What a finished run wrote into its output folder, by method: "<this> was written to <dir>" in
 * the run's summary and in the Runs list.
 */
export function resultWritten(method: string | undefined): string {
  return method === 'full' ? 'The fine-tuned model' : 'The adapter';
}

/**
 * What a run that trained and saved but has no browser-ready copy is called, in its summary and in
 * the Runs list (its cause, `model_error`, follows): never just "succeeded".
 */
export const NO_BROWSER_COPY = 'Trained and saved; no browser copy';
