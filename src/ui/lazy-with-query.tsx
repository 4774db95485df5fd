import { lazy, type ComponentType } from 'react';

/**
 * A lazily loaded component inside the app's `QueryProvider`: the component's chunk and TanStack
 * Query (query-client.tsx) load together on its first render, never with the first page load.
 */
export function lazyWithQuery<P extends object>(
  load: () => Promise<{ default: ComponentType<P> }>,
) {
  return lazy(async () => {
    const [{ default: View }, { QueryProvider }] = await Promise.all([
      load(),
      import('./query-client'),
    ]);
    return {
      default: (props: P) => (
        <QueryProvider>
          <View {...props} />
        </QueryProvider>
      ),
    };
  });
}
