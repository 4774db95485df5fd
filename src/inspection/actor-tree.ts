/**
 * The live actor tree, walked from the root actors the bus remembers: each machine snapshot's
 * `children` holds its spawned and invoked actors (the worker, the pollers), so nothing needs to
 * be recorded while the panel is closed.
 */
import type { ActorRefLike, AnyStateMachine, StateValue } from 'xstate';

/** What the inspector reads of an actor ref (all present on XState's Actor at run time). */
export type InspectedRef = ActorRefLike & {
  id?: string;
  systemId?: string;
  src?: unknown;
  _parent?: InspectedRef;
};

export interface ActorNode {
  ref: InspectedRef;
  sessionId: string;
  /** Id relative to its parent (`chat`, `llmWorker`, `0.app.checking`). */
  id: string;
  /** What the tree and the log call it (see actorLabel). */
  label: string;
  systemId: string | null;
  /** Name of the logic (`probeWebGPU`, `llmWorker`), or the machine id. */
  logic: string;
  kind: 'machine' | 'actor';
  status: string;
  depth: number;
  parent: string | null;
  children: ActorNode[];
}

interface MachineLikeSnapshot {
  status?: string;
  value?: StateValue;
  context?: unknown;
  children?: Record<string, InspectedRef | undefined>;
  machine?: AnyStateMachine;
}

export function snapshotOf(ref: InspectedRef): MachineLikeSnapshot {
  let snapshot: unknown;
  try {
    snapshot = ref.getSnapshot();
  } catch {
    // XState throws while an actor is still initialising (its own '@xstate.actor' event).
    return { status: 'initialising' };
  }
  return typeof snapshot === 'object' && snapshot !== null ? snapshot : {};
}

/** The machine definition behind an actor, when it is a state machine actor. */
export function machineOf(ref: InspectedRef): AnyStateMachine | null {
  return snapshotOf(ref).machine ?? null;
}

export function isActorRef(value: unknown): value is InspectedRef {
  return (
    typeof value === 'object' &&
    value !== null &&
    'sessionId' in value &&
    typeof value.sessionId === 'string' &&
    'getSnapshot' in value &&
    typeof value.getSnapshot === 'function' &&
    'send' in value
  );
}

function logicName(ref: InspectedRef, machine: AnyStateMachine | undefined): string {
  if (machine) return machine.id;
  if (typeof ref.src === 'string') return ref.src;
  return 'actor';
}

/**
 * A short name for an actor in the log and the tree: its system id, else its id, else (a root
 * created without an id has its session id as id) the name of its logic.
 */
export function actorLabel(ref: InspectedRef | undefined | null): string {
  if (!ref) return '—';
  if (ref.systemId) return ref.systemId;
  if (ref.id && ref.id !== ref.sessionId) return ref.id;
  return logicName(ref, snapshotOf(ref).machine);
}

/** The tree under each root, depth-first, children in spawn order. */
export function buildActorTree(roots: readonly InspectedRef[]): ActorNode[] {
  const seen = new Set<string>();
  const visit = (ref: InspectedRef, depth: number, parent: string | null): ActorNode | null => {
    if (seen.has(ref.sessionId)) return null;
    seen.add(ref.sessionId);
    const snapshot = snapshotOf(ref);
    const node: ActorNode = {
      ref,
      sessionId: ref.sessionId,
      id: ref.id ?? ref.sessionId,
      label: actorLabel(ref),
      systemId: ref.systemId ?? null,
      logic: logicName(ref, snapshot.machine),
      kind: snapshot.machine ? 'machine' : 'actor',
      status: snapshot.status ?? 'active',
      depth,
      parent,
      children: [],
    };
    for (const child of Object.values(snapshot.children ?? {})) {
      if (!child) continue;
      const childNode = visit(child, depth + 1, ref.sessionId);
      if (childNode) node.children.push(childNode);
    }
    return node;
  };
  return roots.map((r) => visit(r, 0, null)).filter((n): n is ActorNode => n !== null);
}

/** The tree as a flat list in display order. */
export function flattenTree(nodes: readonly ActorNode[]): ActorNode[] {
  return nodes.flatMap((n) => [n, ...flattenTree(n.children)]);
}

/** `generating`, `loading.waiting`, `{a: x, b: y}` as `a.x | b.y`. */
export function formatStateValue(value: StateValue | undefined): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  const parts = Object.entries(value).map(([key, child]) => {
    const inner = child === undefined ? '' : formatStateValue(child);
    return inner ? `${key}.${inner}` : key;
  });
  return parts.length > 1 ? parts.join(' | ') : (parts[0] ?? '');
}
