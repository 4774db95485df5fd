/**
 * The domain the training service's routes call, one small interface per group of routes (the
 * methods those routes use): the service's classes (service/src) are passed to its routes as
 * these, and the mock's fake domain (mocks/fake) implements the same ones. Methods throw
 * DomainError (domain-errors.ts); the routes turn them into statuses (service-http.ts).
 */
import type * as api from './training-api';

/** The runs: what POST /train, /train/plan, GET /runs…, GET /logs/{id} and the run actions call. */
export interface RunsDomain {
  /** The running run's id, or null. */
  readonly activeId: string | null;
  start(request: api.TrainRequest): Promise<api.RunInfo>;
  plan(request: api.TrainRequest): Promise<api.PlanResponse>;
  /** Every run, newest first. */
  list(): api.RunInfo[];
  get(id: string): api.RunInfo;
  logs(id: string, query: api.LogsQuery): Promise<api.LogsResponse>;
  metrics(id: string, after?: number, evalAfter?: number): Promise<api.MetricsResponse>;
  split(id: string): Promise<api.RunSplit>;
  dataset(id: string): Promise<api.DatasetEntry[]>;
  /** What the run's output folder holds for export (GET /runs/{id}/exports). */
  exports(id: string): Promise<api.RunExports>;
  /** Writes GGUF from an ended run's merged model (POST /runs/{id}/exports). */
  exportRun(id: string, request: api.ExportRequest): Promise<api.RunExports>;
  cancel(id: string): Promise<api.RunInfo>;
  resume(id: string): Promise<api.RunInfo>;
}

/** The trainer's environment: GET /trainer, POST and GET /trainer/setup. */
export interface TrainerDomain {
  info(): Promise<api.TrainerInfo>;
  startSetup(): api.TrainerSetup;
  setup(): api.TrainerSetup;
}

/** The stored datasets: PUT /datasets/{name}. */
export interface DatasetsDomain {
  save(name: string, entries: api.TrainingEntry[]): Promise<api.DatasetResponse>;
}
