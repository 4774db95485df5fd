/**
 * The inspection bus between the app's actors and the inspector panel (or the Stately bridge).
 * Kept tiny because it is in the first-load bundle: only xstate types.
 *
 * Two ways in:
 * - `inspect`, passed as the `inspect` option of a root actor (`createActor`, `useActorRef`, the
 *   actor context Provider). With nobody subscribed it only remembers the root (a reference, no
 *   copy); XState itself still builds each inspection event for it (measured ≈5 µs per token).
 * - `register(actor)`, for zero cost while closed: the bus attaches to the actor's system
 *   (`system.inspect`) only while someone is subscribed, and detaches when the last one leaves.
 * Either way the panel, opened later, walks the live actor tree from the roots it remembers.
 */
import type { AnyActorRef, ActorRefLike, InspectionEvent } from 'xstate';
import { isObject } from '../shared/guards';

export type InspectionListener = (event: InspectionEvent) => void;

interface Root {
  ref: ActorRefLike;
  /** For `register`ed roots: attaches to the system, returns the detach function. */
  attach: (() => () => void) | null;
  detach: (() => void) | null;
}

const listeners = new Set<InspectionListener>();
const roots = new Map<string, Root>();

function dispatch(event: InspectionEvent): void {
  for (const listener of listeners) listener(event);
}

function isStopped(ref: ActorRefLike): boolean {
  try {
    const snapshot: unknown = ref.getSnapshot();
    return isObject(snapshot) && snapshot.status === 'stopped';
  } catch {
    return false; // still initialising: XState refuses to give its snapshot yet
  }
}

function addRoot(root: Root): void {
  // Roots are few and long-lived; drop stopped ones so short-lived roots do not pile up.
  for (const [id, r] of roots) {
    if (!isStopped(r.ref)) continue;
    r.detach?.();
    roots.delete(id);
  }
  roots.set(root.ref.sessionId, root);
  if (listeners.size > 0 && root.attach) root.detach = root.attach();
}

/** Pass as the `inspect` option of a root actor. */
export function inspect(event: InspectionEvent): void {
  if (event.type === '@xstate.actor' && event.actorRef.sessionId === event.rootId)
    addRoot({ ref: event.actorRef, attach: null, detach: null });
  if (listeners.size === 0) return;
  dispatch(event);
}

/**
 * Remembers a root actor created without the `inspect` option; nothing runs per event until
 * someone subscribes. Returns the function that forgets it.
 */
export function register(actor: AnyActorRef): () => void {
  const root: Root = {
    ref: actor,
    attach: () => {
      const subscription = actor.system.inspect(dispatch);
      return () => subscription.unsubscribe();
    },
    detach: null,
  };
  addRoot(root);
  return () => {
    root.detach?.();
    if (roots.get(actor.sessionId) === root) roots.delete(actor.sessionId);
  };
}

/** Receives every inspection event from now on; returns the unsubscribe function. */
export function subscribe(listener: InspectionListener): () => void {
  listeners.add(listener);
  if (listeners.size === 1)
    for (const root of roots.values()) root.detach = root.attach?.() ?? null;
  return () => {
    listeners.delete(listener);
    if (listeners.size > 0) return;
    for (const root of roots.values()) {
      root.detach?.();
      root.detach = null;
    }
  };
}

/**
 * Created but never started: React StrictMode (dev) builds the Provider's actor twice and starts
 * one. XState has no public flag for it; `_processingStatus` 0 is its "not started".
 */
function neverStarted(ref: ActorRefLike): boolean {
  return '_processingStatus' in ref && ref._processingStatus === 0;
}

/** The root actors known to the bus, oldest first (stopped and unstarted ones left out). */
export function getRoots(): ActorRefLike[] {
  return [...roots.values()]
    .map((r) => r.ref)
    .filter((ref) => !isStopped(ref) && !neverStarted(ref));
}

/** Whether anyone is listening (for tests and benchmarks). */
export function hasListeners(): boolean {
  return listeners.size > 0;
}
