/**
 * MSW handlers standing in for the local training service (service/): thin translations of the
 * shared route table (src/shared/service-http.ts) into calls on a fake domain (mocks/fake: runs,
 * the trainer's environment, datasets) with the interfaces the service's routes use. Every HTTP
 * rule (paths, request schemas, the JSON-only rule, statuses, error bodies) is the shared one.
 * Used by the UI tests and by the mock mode (`npm run dev:mock`).
 *
 * Scenarios (mocks/fake/fixtures.ts): in the browser, `?trainingScenario=fail-run` picks one;
 * `?trainer=missing` starts with a trainer whose packages are not installed yet.
 */
import type { RequestHandler } from 'msw';
import { resolveTrainingUrl } from '../src/actors/training-client';
import { SERVICE_ROUTES as ROUTES, serviceInfo } from '../src/shared/service-http';
import {
  DEFAULT_TRAINING_URL,
  type CachedModel,
  type TrainRequest,
} from '../src/shared/training-api';
import type { RunEvaluation } from '../src/shared/run-evaluation';
import { FakeDatasets } from './fake/fake-datasets';
import { FakeHubCache } from './fake/fake-hub-cache';
import type { MockRun } from './fake/fake-run';
import { FakeRuns } from './fake/fake-runs';
import { FakeTrainerEnv } from './fake/fake-trainer-env';
import { TRAINING_SCENARIOS, type MockSplit, type TrainingScenario } from './fake/fixtures';
import { mswFileRoutes, mswRoutes } from './fake/msw-route';

export {
  MOCK_DATASET,
  MOCK_MESSAGES,
  TRAINING_SCENARIOS,
  type MockSplit,
  type TrainingScenario,
} from './fake/fixtures';

export interface TrainingMockOptions {
  baseUrl?: string;
  scenario?: TrainingScenario;
  /** `ready` (default: torch 2.13, CPU only) or `missing` (no packages; set-up installs them). */
  trainer?: 'ready' | 'missing';
  /** Steps a run advances per GET /logs (default 12: 10 polls, 20 s in the browser). */
  stepsPerPoll?: number;
  /** The base models the Hub cache holds at the start (GET /hub-cache; default none). */
  hubCache?: readonly Omit<CachedModel, 'inUse'>[];
}

export interface TrainingMock {
  handlers: RequestHandler[];
  setScenario(scenario: TrainingScenario): void;
  /** Forgets every run (between tests). */
  reset(): void;
  /** Requests received, as 'METHOD /path', for assertions. */
  requests: string[];
  /** The bodies POST /train received. */
  starts: TrainRequest[];
  runs: Map<string, MockRun>;
  /** The last body PUT /runs/{id}/evaluation kept, by run (the service's compare.json). */
  evaluations: ReadonlyMap<string, RunEvaluation>;
  /** The Hub cache (GET /hub-cache, DELETE /hub-cache/models/…): `hold` sets its models. */
  hubCache: FakeHubCache;
  /** GET /runs/{id}/split for that run: 404 (`missing`) or 422 (`malformed`) from now on. */
  setSplit(runId: string, split: MockSplit): void;
}

export function createTrainingMock(options: TrainingMockOptions = {}): TrainingMock {
  const base = (options.baseUrl ?? DEFAULT_TRAINING_URL).replace(/\/+$/, '');
  const trainerReady = (options.trainer ?? 'ready') === 'ready';
  const datasets = new FakeDatasets();
  const runs = new FakeRuns(datasets, options.scenario ?? 'progress', options.stepsPerPoll ?? 12);
  const trainer = new FakeTrainerEnv(trainerReady, () => runs.activeId !== null);
  runs.settingUp = () => trainer.settingUp;
  const hubCache = new FakeHubCache(() =>
    runs.activeId ? runs.get(runs.activeId).base_model : null,
  );
  hubCache.hold(options.hubCache ?? []);
  const requests: string[] = [];
  const starts: TrainRequest[] = [];
  const record = (request: Request) => {
    const url = new URL(request.url);
    requests.push(`${request.method} ${url.pathname}${url.search}`);
  };
  const route = mswRoutes(base, record);

  const handlers: RequestHandler[] = [
    route(ROUTES.info, () =>
      serviceInfo('Local LLM Studio training service (mock mode)', '0.0.0-mock'),
    ),
    mswRoutes(base)(ROUTES.health, () => ({ ok: true })),
    route(ROUTES.plan, ({ body }) => runs.plan(body)),
    route(ROUTES.train, async ({ body }) => {
      starts.push(body);
      return { run_id: (await runs.start(body)).id };
    }),
    route(ROUTES.logs, ({ params, query }) => runs.logs(params.id, query)),
    route(ROUTES.runs, () => ({ runs: runs.list(), active: runs.activeId })),
    route(ROUTES.metrics, ({ params, query }) =>
      runs.metrics(params.id, query.after, query.eval_after),
    ),
    route(ROUTES.models, () => ({ models: runs.models() })),
    route(ROUTES.run, ({ params }) => runs.get(params.id)),
    route(ROUTES.split, ({ params }) => runs.split(params.id)),
    route(ROUTES.dataset, async ({ params }) => ({ entries: await runs.dataset(params.id) })),
    route(ROUTES.exports, ({ params }) => runs.exports(params.id)),
    route(ROUTES.exportRun, ({ params, body }) => runs.exportRun(params.id, body)),
    route(ROUTES.runEvaluation, ({ params, body }) => runs.saveEvaluation(params.id, body)),
    ...mswFileRoutes(base, record)(ROUTES.exportFile, async ({ params }) => ({
      name: params.file,
      bytes: await runs.exportFile(params.id, params.file),
    })),
    ...mswFileRoutes(base, record)(ROUTES.exportArchive, ({ params }) =>
      runs.exportArchive(params.id, params.kind),
    ),
    route(ROUTES.cancel, ({ params }) => runs.cancel(params.id)),
    route(ROUTES.resume, ({ params }) => runs.resume(params.id)),
    route(ROUTES.trainer, () => trainer.info()),
    route(ROUTES.setup, () => trainer.setup()),
    route(ROUTES.startSetup, () => trainer.startSetup()),
    route(ROUTES.saveDataset, ({ params, body }) => datasets.save(params.name, body)),
    route(ROUTES.hubCache, () => hubCache.list()),
    route(ROUTES.removeCachedModel, ({ params }) =>
      hubCache.remove(`${params.org}/${params.name}`),
    ),
  ];

  return {
    handlers,
    requests,
    starts,
    runs: runs.runs,
    evaluations: runs.evaluations,
    hubCache,
    setScenario: (next) => {
      runs.scenario = next;
    },
    setSplit: (runId, split) => {
      const run = runs.runs.get(runId);
      if (run) run.split = split;
    },
    reset: () => {
      trainer.reset(trainerReady);
      runs.reset();
      datasets.clear();
      hubCache.hold(options.hubCache ?? []);
      requests.length = 0;
      starts.length = 0;
    },
  };
}

function scenarioFromLocation(): TrainingScenario {
  const value = new URLSearchParams(globalThis.location?.search ?? '').get('trainingScenario');
  return TRAINING_SCENARIOS.find((s) => s === value) ?? 'progress';
}

/** The mock mode's training service: the app's service URL and the page's query options. */
export const trainingMock = createTrainingMock({
  baseUrl: resolveTrainingUrl(),
  // One base already downloaded, so the panel's cache section shows a row to remove.
  hubCache: [{ id: 'Qwen/Qwen2.5-0.5B-Instruct', bytes: 988_097_824, revisions: 1 }],
  scenario: scenarioFromLocation(),
  trainer:
    new URLSearchParams(globalThis.location?.search ?? '').get('trainer') === 'missing'
      ? 'missing'
      : 'ready',
});
export const trainingHandlers: RequestHandler[] = trainingMock.handlers;
