import { useEffect, useMemo, useState } from 'react';
import type { AnyStateMachine, StateValue } from 'xstate';
import {
  activeNodeIds,
  buildDiagramModel,
  type DiagramModel,
} from '../../inspection/diagram-model';
import { layoutDiagram, type DiagramLayout } from '../../inspection/layout';
import { diagramScene } from '../../inspection/svg-scene';
import { formatStateValue } from '../../inspection/actor-tree';
import { sceneToReact } from './scene-react';
import { errorMessage } from '../../shared/errors';

interface Props {
  machine: AnyStateMachine;
  value: StateValue | undefined;
}

type Laid = { model: DiagramModel; layout: DiagramLayout } | { error: string };

/** One layout per machine definition, computed once and kept while the page lives. */
const layouts = new WeakMap<AnyStateMachine, Promise<Laid>>();

function layoutFor(machine: AnyStateMachine): Promise<Laid> {
  let laid = layouts.get(machine);
  if (!laid) {
    const model = buildDiagramModel(machine);
    laid = layoutDiagram(model).then(
      (layout) => ({ model, layout }),
      (error: unknown) => ({ error: errorMessage(error) }),
    );
    layouts.set(machine, laid);
  }
  return laid;
}

/** The layout of `machine`, or null while ELK works on it. */
function useLayout(machine: AnyStateMachine): Laid | null {
  const [done, setDone] = useState<{ machine: AnyStateMachine; laid: Laid } | null>(null);
  useEffect(() => {
    let live = true;
    void layoutFor(machine).then((laid) => {
      if (live) setDone({ machine, laid });
    });
    return () => {
      live = false;
    };
  }, [machine]);
  return done?.machine === machine ? done.laid : null;
}

function Diagram({ machine, value, laid }: Props & { laid: Laid }) {
  const [fit, setFit] = useState(true);
  const active = useMemo(
    () =>
      'model' in laid && value !== undefined ? activeNodeIds(laid.model, value) : new Set<string>(),
    [laid, value],
  );
  const scene = useMemo(
    () =>
      'layout' in laid
        ? diagramScene(laid.layout, { active, idPrefix: 'insp', title: `${machine.id} statechart` })
        : null,
    [laid, active, machine.id],
  );
  if ('error' in laid) return <p role="alert">Could not lay out the diagram: {laid.error}</p>;
  return (
    <div className="insp-diagram">
      <div className="insp-toolbar">
        <span className="insp-active" aria-live="polite">
          State: <strong>{formatStateValue(value)}</strong>
        </span>
        <button type="button" onClick={() => setFit((f) => !f)} aria-pressed={!fit}>
          {fit ? 'Actual size' : 'Fit width'}
        </button>
      </div>
      <div className={fit ? 'insp-svg insp-fit' : 'insp-svg'}>{scene && sceneToReact(scene)}</div>
    </div>
  );
}

/** The selected machine's statechart, laid out by ELK, active states highlighted. */
export function StateDiagram(props: Props) {
  const laid = useLayout(props.machine);
  if (!laid) return <p className="insp-muted">Laying out the statechart…</p>;
  return <Diagram {...props} laid={laid} />;
}
