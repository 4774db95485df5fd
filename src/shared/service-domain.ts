/**
 * The domain the training service's routes call, one small interface per group of routes (the
 * methods those routes use): the service's classes (service/src) are passed to its routes as
 * these, and the mock's fake domain (mocks/fake) implements the same ones. Methods throw
 * DomainError (domain-errors.ts); the routes turn them into statuses (service-http.ts).
 */
import type {
  DatasetEntry,
  DatasetResponse,
  LogsQuery,
  LogsResponse,
  MetricsResponse,
  PlanResponse,
  RunInfo,
  RunSplit,
  TrainRequest,
  TrainerInfo,
  TrainerSetup,
  TrainingEntry,
} from './training-api';

/** The runs: what POST /train, /train/plan, GET /runs…, GET /logs/{id} and the run actions call. */
export interface RunsDomain {
  /** The running run's id, or null. */
  readonly activeId: string | null;
  start(request: TrainRequest): Promise<RunInfo>;
  plan(request: TrainRequest): Promise<PlanResponse>;
  /** Every run, newest first. */
  list(): RunInfo[];
  get(id: string): RunInfo;
  logs(id: string, query: LogsQuery): Promise<LogsResponse>;
  metrics(id: string, after?: number, evalAfter?: number): Promise<MetricsResponse>;
  split(id: string): Promise<RunSplit>;
  dataset(id: string): Promise<DatasetEntry[]>;
  cancel(id: string): Promise<RunInfo>;
  resume(id: string): Promise<RunInfo>;
}

/** The trainer's environment: GET /trainer, POST and GET /trainer/setup. */
export interface TrainerDomain {
  info(): Promise<TrainerInfo>;
  startSetup(): TrainerSetup;
  setup(): TrainerSetup;
}

/** The stored datasets: PUT /datasets/{name}. */
export interface DatasetsDomain {
  save(name: string, entries: TrainingEntry[]): Promise<DatasetResponse>;
}
