/**
 * The app's one TanStack Query client, in a module of its own so that TanStack Query loads with the
 * first code that needs it (the hub, a run's log in the Runs list, a training run's polling and
 * mutations, a hosted 'Format Input' request), never with the first page load. Lazy components
 * wrap themselves in {@link QueryProvider}; the composition root's actors use {@link queryClient}.
 */
import type { ReactNode } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';

export const queryClient = new QueryClient();

export function QueryProvider({ children }: { children: ReactNode }) {
  return <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>;
}
