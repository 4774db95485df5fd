/**
 * Lays a diagram model out with ELK (layered algorithm, compound nodes for nesting). ELK is
 * loaded on first use, in its own lazy chunk. Text is measured as monospace so the same layout
 * is right in the panel and in the SVG files the diagram script writes.
 */
import type { ELK, ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api';
import type { DiagramEdge, DiagramModel, DiagramNode } from './diagram-model';

export const FONT_SIZE = 11;
/** Width of one monospace character at FONT_SIZE (0.6 em). */
export const CHAR_WIDTH = FONT_SIZE * 0.6;
export const LINE_HEIGHT = 16;
const PAD = 8;
const HEADER = 22;

export interface Point {
  x: number;
  y: number;
}

export interface LaidOutNode {
  node: DiagramNode;
  x: number;
  y: number;
  width: number;
  height: number;
  /** Lines shown inside the state under its name: invokes and self-transitions. */
  rows: string[];
}

export interface LaidOutEdge {
  edge: DiagramEdge;
  points: Point[];
  label: { x: number; y: number; text: string } | null;
}

/** The initial-state dot of a compound state and its arrow. */
export interface InitialMarker {
  parent: string;
  center: Point;
  points: Point[];
}

export interface DiagramLayout {
  machineId: string;
  width: number;
  height: number;
  nodes: LaidOutNode[];
  edges: LaidOutEdge[];
  initials: InitialMarker[];
}

const textWidth = (text: string) => Math.ceil(text.length * CHAR_WIDTH);

/** What is listed inside a state: invoked actors, then transitions that stay in the state. */
export function nodeRows(model: DiagramModel, node: DiagramNode): string[] {
  const rows = node.invokes.map((name) => `invoke ${name}`);
  for (const e of model.edges) {
    if (e.source !== node.id || e.target !== node.id) continue;
    rows.push(e.internal ? `${e.label}` : `↻ ${e.label}`);
  }
  return rows;
}

let elkPromise: Promise<ELK> | null = null;
function loadElk(): Promise<ELK> {
  elkPromise ??= import('elkjs/lib/elk.bundled.js').then((m) => new m.default());
  return elkPromise;
}

/** Layered options, set on every graph level (ELK reads most of them per compound node). */
const LAYERED: Record<string, string> = {
  'elk.algorithm': 'layered',
  'elk.direction': 'DOWN',
  'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
  'elk.edgeRouting': 'ORTHOGONAL',
  'elk.layered.spacing.nodeNodeBetweenLayers': '36',
  'elk.spacing.nodeNode': '28',
  'elk.spacing.edgeLabel': '3',
  'elk.spacing.edgeEdge': '10',
  'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
  // Break cycles by definition order: the initial state on top, the flow downwards.
  'elk.layered.cycleBreaking.strategy': 'DEPTH_FIRST',
};

const ROOT_OPTIONS: Record<string, string> = {
  ...LAYERED,
  'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
  'elk.json.edgeCoords': 'ROOT',
  'elk.json.shapeCoords': 'ROOT',
  'elk.padding': '[top=12,left=12,bottom=12,right=12]',
};

function toElkGraph(model: DiagramModel): { graph: ElkNode; rows: Map<string, string[]> } {
  const rows = new Map<string, string[]>();
  const elkNodes = new Map<string, ElkNode>();
  const graph: ElkNode = { id: '__root', layoutOptions: ROOT_OPTIONS, children: [], edges: [] };
  const edges: ElkExtendedEdge[] = [];
  for (const node of model.nodes) {
    const lines = nodeRows(model, node);
    rows.set(node.id, lines);
    const contentWidth = Math.max(textWidth(node.key), ...lines.map(textWidth)) + 2 * PAD;
    const headerHeight = HEADER + lines.length * LINE_HEIGHT;
    const hasChildren = model.nodes.some((n) => n.parent === node.id);
    const elkNode: ElkNode = hasChildren
      ? {
          id: node.id,
          children: [],
          layoutOptions: {
            ...LAYERED,
            'elk.padding': `[top=${headerHeight + PAD},left=${PAD * 2},bottom=${PAD * 2},right=${PAD * 2}]`,
            'elk.nodeSize.constraints': 'MINIMUM_SIZE',
            'elk.nodeSize.minimum': `(${contentWidth}, ${headerHeight + PAD})`,
          },
        }
      : { id: node.id, width: Math.max(contentWidth, 64), height: headerHeight + PAD / 2 };
    elkNodes.set(node.id, elkNode);
    const parent = node.parent ? elkNodes.get(node.parent) : graph;
    parent?.children?.push(elkNode);
  }
  for (const node of model.nodes) {
    if (!node.initial || !node.parent) continue;
    const markerId = `${node.parent}::initial`;
    // First in its parent so model order puts the initial state at the top.
    elkNodes.get(node.parent)?.children?.unshift({ id: markerId, width: 10, height: 10 });
    edges.push({ id: `${markerId}->`, sources: [markerId], targets: [node.id] });
  }
  for (const e of model.edges) {
    if (e.source === e.target) continue;
    edges.push({
      id: e.id,
      sources: [e.source],
      targets: [e.target],
      labels: [{ text: e.label, width: textWidth(e.label) + 4, height: LINE_HEIGHT }],
    });
  }
  graph.edges = edges;
  return { graph, rows };
}

function pointsOf(edge: ElkExtendedEdge): Point[] {
  return (edge.sections ?? []).flatMap((s) => [s.startPoint, ...(s.bendPoints ?? []), s.endPoint]);
}

/** Lays out a diagram model; the result is in absolute coordinates. */
export async function layoutDiagram(model: DiagramModel): Promise<DiagramLayout> {
  const elk = await loadElk();
  const { graph, rows } = toElkGraph(model);
  const result = await elk.layout(graph);
  const shapes = new Map<string, ElkNode>();
  const collect = (n: ElkNode) => {
    shapes.set(n.id, n);
    n.children?.forEach(collect);
  };
  collect(result);
  const byId = new Map(model.edges.map((e) => [e.id, e]));
  const nodes: LaidOutNode[] = model.nodes.map((node) => {
    const s = shapes.get(node.id);
    return {
      node,
      x: s?.x ?? 0,
      y: s?.y ?? 0,
      width: s?.width ?? 0,
      height: s?.height ?? 0,
      rows: rows.get(node.id) ?? [],
    };
  });
  const edges: LaidOutEdge[] = [];
  const initials: InitialMarker[] = [];
  for (const e of result.edges ?? []) {
    const edge = byId.get(e.id);
    if (!edge) {
      const markerId = e.sources[0] ?? '';
      const dot = shapes.get(markerId);
      initials.push({
        parent: markerId.replace(/::initial$/, ''),
        center: { x: (dot?.x ?? 0) + 5, y: (dot?.y ?? 0) + 5 },
        points: pointsOf(e),
      });
      continue;
    }
    const l = e.labels?.[0];
    edges.push({
      edge,
      points: pointsOf(e),
      label: l ? { x: l.x ?? 0, y: l.y ?? 0, text: edge.label } : null,
    });
  }
  return {
    machineId: model.machineId,
    width: result.width ?? 0,
    height: result.height ?? 0,
    nodes,
    edges,
    initials,
  };
}
