/**
 * Every machine in src/machines (picked up by file name, so machines added later are covered):
 * its diagram model holds exactly the states of its definition and every event it handles, and
 * ELK lays all of them out.
 */
import { describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { buildDiagramModel } from './diagram-model';
import { layoutDiagram } from './layout';

const modules = import.meta.glob<Record<string, unknown>>('../machines/*Machine.ts', {
  eager: true,
});

function isMachine(value: unknown): value is AnyStateMachine {
  return typeof value === 'object' && value !== null && 'root' in value && 'config' in value;
}

interface RawState {
  states?: Record<string, RawState>;
}

/** State keys counted from the raw config, independent of the StateNode API. */
function countStates(config: RawState): number {
  return 1 + Object.values(config.states ?? {}).reduce((n, s) => n + countStates(s), 0);
}

const machines = Object.entries(modules).flatMap(([file, module]) =>
  Object.values(module)
    .filter(isMachine)
    .map((machine) => [file.replace('../machines/', ''), machine] as const),
);

describe('every machine’s diagram', () => {
  it('finds the machines', () => {
    expect(machines.map(([, m]) => m.id)).toEqual(expect.arrayContaining(['app', 'chat', 'model']));
  });

  it.each(machines)('%s: exactly its states and events', async (_file, machine) => {
    const model = buildDiagramModel(machine);
    expect(model.nodes).toHaveLength(countStates(machine.config as RawState));
    for (const node of model.nodes) expect(machine.getStateNodeById(node.id).id).toBe(node.id);
    const ids = new Set(model.nodes.map((n) => n.id));
    for (const edge of model.edges) {
      expect(ids).toContain(edge.source);
      expect(ids).toContain(edge.target);
    }
    const handled = (machine.events as string[]).filter((e) => !e.startsWith('xstate.'));
    const drawn = new Set(model.edges.map((e) => e.event));
    for (const event of handled) expect(drawn, event).toContain(event);

    const layout = await layoutDiagram(model);
    expect(layout.nodes.every((n) => n.width > 0 && n.height > 0)).toBe(true);
    expect(layout.edges.filter((e) => e.points.length >= 2)).toHaveLength(
      model.edges.filter((e) => e.source !== e.target).length,
    );
  });
});
