/**
 * The app's mock mode (`npm run dev:mock`): MSW in the browser answers the training service,
 * the hosted chat completion and the Hub API, so the app runs with no service and no network.
 * Never imported on the real path (src/main.tsx imports it only when MODE === 'mock').
 */
import { setupWorker } from 'msw/browser';
import { handlers } from './handlers';

export async function startMockServiceWorker() {
  const worker = setupWorker(...handlers);
  await worker.start({ onUnhandledRequest: 'bypass', quiet: false });
  return worker;
}
