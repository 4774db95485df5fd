/**
 * The diagram model of a statechart, read from the machine definition itself (states, nesting,
 * initial states, every transition with its event, guard and kind), so a drawing made from it
 * cannot drift from the code.
 */
import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition, StateValue } from 'xstate';

export type DiagramNodeType = 'atomic' | 'compound' | 'parallel' | 'final' | 'history';

export interface DiagramNode {
  /** The StateNode id (`chat.idle`, or a custom `#id`). */
  id: string;
  key: string;
  /** Parent node id; null for the machine's root. */
  parent: string | null;
  type: DiagramNodeType;
  /** Whether this is its parent's initial state. */
  initial: boolean;
  /** Keys from the root (`['loading', 'waiting']`); the root's path is empty. */
  path: string[];
  /** Names of the actors invoked while in this state. */
  invokes: string[];
  tags: string[];
}

export type DiagramEdgeKind = 'event' | 'always' | 'after' | 'done' | 'error';

export interface DiagramEdge {
  id: string;
  source: string;
  /** Same as `source` for a targetless transition (actions only). */
  target: string;
  /** Event name (humanised for done/error/after), with the guard in brackets. */
  label: string;
  event: string;
  guard: string | null;
  kind: DiagramEdgeKind;
  /** Targetless: runs actions without leaving the state. */
  internal: boolean;
  /** Exits and re-enters its target even when the target is the source or inside it. */
  reenter: boolean;
}

export interface DiagramModel {
  machineId: string;
  nodes: DiagramNode[];
  edges: DiagramEdge[];
}

function guardName(guard: unknown): string | null {
  if (guard === undefined || guard === null) return null;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'object' && 'type' in guard && typeof guard.type === 'string')
    return guard.type;
  if (typeof guard === 'function') {
    if ('type' in guard && typeof guard.type === 'string')
      return guard.type.replace(/^xstate\./, '');
    return guard.name || 'guard';
  }
  return 'guard';
}

function actorName(src: unknown, fallback: string): string {
  if (typeof src === 'string') return src;
  if (src && typeof src === 'object' && 'id' in src && typeof src.id === 'string') return src.id;
  return fallback;
}

/** Finds the invoke definition an `xstate.done.actor.<id>` event refers to. */
function invokeNameFor(node: AnyStateNode, invokeId: string): string {
  for (let n: AnyStateNode | undefined = node; n; n = n.parent) {
    const def = n.invoke.find((i) => i.id === invokeId);
    if (def) return actorName(def.src, invokeId);
  }
  return invokeId;
}

function describeEvent(
  node: AnyStateNode,
  eventType: string,
): { kind: DiagramEdgeKind; event: string } {
  if (eventType.startsWith('xstate.done.actor.'))
    return { kind: 'done', event: `done: ${invokeNameFor(node, eventType.slice(18))}` };
  if (eventType.startsWith('xstate.error.actor.'))
    return { kind: 'error', event: `error: ${invokeNameFor(node, eventType.slice(19))}` };
  if (eventType.startsWith('xstate.done.state.')) return { kind: 'done', event: 'done' };
  if (eventType.startsWith('xstate.after.')) {
    const after = node.after.find((a) => a.eventType === eventType);
    const delay = after?.delay;
    const text = typeof delay === 'number' ? `${delay}ms` : String(delay ?? eventType.slice(13));
    return { kind: 'after', event: `after ${text}` };
  }
  return { kind: 'event', event: eventType };
}

function toEdges(
  node: AnyStateNode,
  transition: AnyTransitionDefinition,
  kind: DiagramEdgeKind,
  event: string,
  next: () => string,
): DiagramEdge[] {
  const guard = guardName(transition.guard);
  const label = guard ? `${event} [${guard}]` : event;
  const targets = transition.target?.length ? transition.target : null;
  const base = { source: node.id, label, event, guard, kind, reenter: transition.reenter };
  if (!targets) return [{ ...base, id: next(), target: node.id, internal: true }];
  return targets.map((t) => ({ ...base, id: next(), target: t.id, internal: false }));
}

/** Builds the diagram model of any XState v5 machine. */
export function buildDiagramModel(machine: AnyStateMachine): DiagramModel {
  const nodes: DiagramNode[] = [];
  const edges: DiagramEdge[] = [];
  let count = 0;
  const next = () => `e${count++}`;

  const visit = (node: AnyStateNode, parent: AnyStateNode | null) => {
    const initialIds =
      parent && parent.type === 'compound' ? parent.initial.target.map((t) => t.id) : [];
    nodes.push({
      id: node.id,
      key: node.key,
      parent: parent?.id ?? null,
      type: node.type,
      initial: initialIds.includes(node.id),
      path: node.path,
      invokes: node.invoke.map((i) => actorName(i.src, i.id)),
      tags: [...node.tags],
    });
    for (const [eventType, transitions] of node.transitions) {
      const { kind, event } = describeEvent(node, eventType);
      for (const t of transitions) edges.push(...toEdges(node, t, kind, event, next));
    }
    for (const t of node.always ?? []) edges.push(...toEdges(node, t, 'always', 'always', next));
    for (const child of Object.values(node.states)) visit(child, node);
  };
  visit(machine.root, null);
  return { machineId: machine.id, nodes, edges };
}

/** Dotted paths of every active state in a snapshot value ('' is the root). */
export function activePaths(value: StateValue): Set<string> {
  const active = new Set<string>(['']);
  const walk = (v: StateValue, prefix: string) => {
    if (typeof v === 'string') {
      active.add(prefix ? `${prefix}.${v}` : v);
      return;
    }
    for (const [key, child] of Object.entries(v)) {
      const path = prefix ? `${prefix}.${key}` : key;
      active.add(path);
      if (child !== undefined) walk(child, path);
    }
  };
  walk(value, '');
  return active;
}

/** The ids of the model's nodes that are active for a snapshot value. */
export function activeNodeIds(model: DiagramModel, value: StateValue): Set<string> {
  const paths = activePaths(value);
  return new Set(model.nodes.filter((n) => paths.has(n.path.join('.'))).map((n) => n.id));
}
