import { describe, expect, it } from 'vitest';
import { deriveGraph, drawnGraph, renderGraph } from '../../scripts/deps-graph';

describe('docs/ARCHITECTURE.md dependency graph', () => {
  it('is the graph of the code (run `npm run deps:graph` after changing imports)', () => {
    // Regression: the doc described a composition root the code did not have.
    expect(drawnGraph()).toBe(renderGraph());
  });

  it('keeps the rules: machines and shared import no app layer, ui only types from actors', () => {
    const graph = deriveGraph();
    const to = (from: string) => [...(graph.get(from)?.keys() ?? [])];
    expect(to('machines').filter((t) => t !== 'shared')).toEqual([]);
    expect(to('shared')).toEqual([]);
    expect(graph.get('ui')?.get('actors') ?? true).toBe(true);
    expect(to('actors')).not.toContain('ui');
    expect(to('hub').filter((t) => ['ui', 'machines', 'actors'].includes(t))).toEqual([]);
  });
});
