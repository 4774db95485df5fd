import type { RequestHandler } from 'msw';
import { trainingHandlers } from './training-handlers';
import { datasetHandlers } from './dataset-handlers';
import { hubHandlers } from './hub-handlers';

/** Every MSW handler of the app, shared by the tests and the mock mode. */
export const handlers: RequestHandler[] = [...trainingHandlers, ...datasetHandlers, ...hubHandlers];
