/**
 * `?inspect=stately`: forwards the bus to the Stately inspector (@statelyai/inspect, loaded only
 * here, by dynamic import). It opens stately.ai/inspect in a new window, so it needs the network.
 */
import { Actor, type InspectionEvent, type Snapshot } from 'xstate';
import { getRoots, subscribe } from './bus';
import { buildActorTree, flattenTree, snapshotOf } from './actor-tree';

/** The snapshot as the inspector's protocol types it (an initialising actor reads as active). */
function toSnapshot({ status, ...rest }: ReturnType<typeof snapshotOf>): Snapshot<unknown> {
  const known = status === 'done' || status === 'error' || status === 'stopped' ? status : 'active';
  return { ...rest, status: known, output: undefined, error: undefined };
}

/** Starts the bridge; resolves to the function that stops it. */
export async function startStatelyInspector(): Promise<() => void> {
  const { createBrowserInspector } = await import('@statelyai/inspect');
  const inspector = createBrowserInspector();
  const forward = (event: InspectionEvent) => inspector.inspect.next?.(event);
  // Actors that already exist: announce them and their current snapshots first.
  for (const node of flattenTree(buildActorTree(getRoots()))) {
    let root = node.ref;
    while (root._parent) root = root._parent;
    const actorRef = node.ref;
    // Every ref in the tree is an XState actor; the check narrows the inspector's structural type.
    if (!(actorRef instanceof Actor)) continue;
    forward({ type: '@xstate.actor', actorRef, rootId: root.sessionId });
    forward({
      type: '@xstate.snapshot',
      actorRef,
      rootId: root.sessionId,
      event: { type: 'xstate.init' },
      snapshot: toSnapshot(snapshotOf(node.ref)),
    });
  }
  const unsubscribe = subscribe(forward);
  return () => {
    unsubscribe();
    inspector.stop();
  };
}
