import { queryOptions } from '@tanstack/react-query';
import { fetchModelRecord } from './fetch-model-record';
import { isHubError } from './hub-error';

/** Query keys of the hub data, one factory so hooks and actors share them. */
export const hubKeys = {
  all: ['hub'] as const,
  model: (modelId: string) => ['hub', 'model', modelId] as const,
};

/**
 * TanStack Query options for a model record (`useQuery(modelRecordQueryOptions({ modelId }))`).
 * Only server errors (5xx) are retried: a 404, a 429 or a bad id will not change by asking again.
 */
export function modelRecordQueryOptions(params: {
  modelId: string;
  fetch?: typeof globalThis.fetch;
}) {
  const { modelId, fetch } = params;
  return queryOptions({
    queryKey: hubKeys.model(modelId),
    queryFn: ({ signal }) => fetchModelRecord({ modelId, fetch, signal }),
    enabled: modelId.trim() !== '',
    staleTime: 5 * 60_000,
    retry: (failureCount, error) =>
      failureCount < 2 && isHubError(error) && error.kind === 'http' && (error.status ?? 0) >= 500,
  });
}
