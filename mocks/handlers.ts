import type { RequestHandler } from 'msw';

/** Every MSW handler of the app, shared by the tests and the mock mode. */
export const handlers: RequestHandler[] = [];
