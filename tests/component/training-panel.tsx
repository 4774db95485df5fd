/**
 * What the training panel's component tests share: the mock training service on an MSW server
 * (unhandled requests fail the test) with the training code loaded once, a clean slate before
 * each test, and the panel rendered as the composition root wires it.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { render } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { setupServer } from 'msw/node';
import type { ReactNode } from 'react';
import { createTrainingMock } from '../../mocks/training-handlers';
import { createServices } from '../../src/composition';
import { DEFAULT_TRAINING_URL } from '../../src/shared/training-api';
import { queryClient as appQueryClient } from '../../src/ui/query-client';
import { ServicesContext } from '../../src/ui/services';
import { TrainingPanel, type TrainingPanelProps } from '../../src/ui/training/TrainingPanel';

/** The mock service for the test file, listening from before its first test to after its last. */
export function serveTrainingMock(options: { stepsPerPoll: number }) {
  const mock = createTrainingMock(options);
  const server = setupServer(...mock.handlers);
  beforeAll(async () => {
    server.listen({ onUnhandledRequest: 'error' });
    // The training code is a chunk of its own: loaded once here, so each panel renders at once.
    await createServices().loadTrainingLogic();
  });
  beforeEach(() => {
    localStorage.clear();
    // Lazy views use the app's one QueryClient: nothing cached crosses from one test to the next.
    appQueryClient.clear();
    mock.reset();
  });
  afterAll(() => server.close());
  return { mock, server };
}

/** The panel wired as the composition root wires it, with the mock service and a short poll. */
export function renderPanel(props: TrainingPanelProps = {}, { pollInterval = 15 } = {}) {
  const queryClient = new QueryClient({
    defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
  });
  const services = createServices({
    queryClient,
    trainingUrl: DEFAULT_TRAINING_URL,
    pollInterval,
  });
  const wrap = (node: ReactNode) => (
    <QueryClientProvider client={queryClient}>
      <ServicesContext value={services}>{node}</ServicesContext>
    </QueryClientProvider>
  );
  const panelProps = {
    dataFileFromDataset: 'service-data/datasets/stored.json',
    ...props,
  };
  const view = render(wrap(<TrainingPanel {...panelProps} />));
  return {
    ...view,
    rerenderWith: (next: TrainingPanelProps) =>
      view.rerender(wrap(<TrainingPanel {...props} {...next} />)),
  };
}
