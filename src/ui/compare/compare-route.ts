/** The Compare view's URL: `#/compare`, or `#/compare?run=<run id>` to compare a run with its base. */
export function compareHash(runId?: string): string {
  return runId ? `#/compare?run=${encodeURIComponent(runId)}` : '#/compare';
}

/** The run named by a Compare route ('/compare?run=abc' → 'abc'), null when none. */
export function runOfRoute(route: string): string | null {
  const query = route.split('?')[1] ?? '';
  const run = new URLSearchParams(query).get('run');
  return run && run.trim() ? run.trim() : null;
}
