/**
 * A laid-out diagram as a small SVG element tree, shared by the panel (turned into React
 * elements) and the diagram script (turned into a string), so both draw the same picture.
 */
import { CHAR_WIDTH, FONT_SIZE, LINE_HEIGHT, type DiagramLayout, type Point } from './layout';

export interface SvgEl {
  tag: string;
  attrs: Record<string, string | number>;
  children?: SvgEl[];
  text?: string;
}

/** Plain CSS for the diagram, inside the SVG so the standalone files look the same. */
export const DIAGRAM_CSS = `
.sd-state{fill:#fff;stroke:#64748b;stroke-width:1.2}
.sd-state.sd-compound{fill:#f8fafc}
.sd-state.sd-final{stroke-width:3;stroke:#64748b}
.sd-state.sd-active{fill:#dbeafe;stroke:#1d4ed8;stroke-width:2.5}
.sd-state.sd-compound.sd-active{fill:#eff6ff}
.sd-name{font-weight:700;fill:#0f172a}
.sd-row{fill:#334155}
.sd-active-text{fill:#1e3a8a}
.sd-edge{fill:none;stroke:#475569;stroke-width:1.2}
.sd-edge.sd-from-active{stroke:#1d4ed8}
.sd-label{fill:#334155}
.sd-label-bg{fill:#fff;fill-opacity:.85}
.sd-initial{fill:#0f172a}
text{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:${FONT_SIZE}px}
`;

const r = (n: number) => Math.round(n * 10) / 10;

function pathOf(points: Point[]): string {
  return points.map((p, i) => `${i === 0 ? 'M' : 'L'}${r(p.x)} ${r(p.y)}`).join(' ');
}

function text(x: number, y: number, value: string, cls: string): SvgEl {
  return { tag: 'text', attrs: { x: r(x), y: r(y), class: cls }, text: value };
}

export interface SceneOptions {
  /** Ids of the active state nodes (highlighted). */
  active?: ReadonlySet<string>;
  /** Prefix for element ids (the arrowhead marker), unique per document. */
  idPrefix?: string;
  /** Accessible title. */
  title?: string;
}

/** The SVG element tree of a laid-out diagram. */
export function diagramScene(layout: DiagramLayout, options: SceneOptions = {}): SvgEl {
  const active = options.active ?? new Set<string>();
  const arrowId = `${options.idPrefix ?? 'sd'}-arrow`;
  const children: SvgEl[] = [
    { tag: 'title', attrs: {}, text: options.title ?? `${layout.machineId} statechart` },
    { tag: 'style', attrs: {}, text: DIAGRAM_CSS },
    {
      tag: 'defs',
      attrs: {},
      children: [
        {
          tag: 'marker',
          attrs: {
            id: arrowId,
            viewBox: '0 0 10 10',
            refX: 9,
            refY: 5,
            markerWidth: 7,
            markerHeight: 7,
            orient: 'auto-start-reverse',
          },
          children: [{ tag: 'path', attrs: { d: 'M0 0 L10 5 L0 10 z', fill: '#475569' } }],
        },
      ],
    },
  ];
  for (const n of layout.nodes) {
    const isActive = active.has(n.node.id);
    // The machine itself is always active: only its states are highlighted.
    const highlighted = isActive && n.node.parent !== null;
    const compound = n.node.type === 'compound' || n.node.type === 'parallel';
    const cls = ['sd-state', `sd-${n.node.type}`];
    if (compound) cls.push('sd-compound');
    if (highlighted) cls.push('sd-active');
    const textCls = highlighted ? ' sd-active-text' : '';
    const name = n.node.parent === null ? `${n.node.key} (machine)` : n.node.key;
    const group: SvgEl[] = [
      {
        tag: 'rect',
        attrs: {
          x: r(n.x),
          y: r(n.y),
          width: r(n.width),
          height: r(n.height),
          rx: 8,
          class: cls.join(' '),
          ...(n.node.type === 'parallel' ? { 'stroke-dasharray': '6 3' } : {}),
        },
      },
      text(n.x + 8, n.y + 15, name, `sd-name${textCls}`),
      ...n.rows.map((row, i) =>
        text(n.x + 8, n.y + 15 + LINE_HEIGHT * (i + 1), row, `sd-row${textCls}`),
      ),
    ];
    children.push({
      tag: 'g',
      attrs: { 'data-state': n.node.id, 'data-active': String(isActive) },
      children: group,
    });
  }
  for (const m of layout.initials) {
    children.push({
      tag: 'g',
      attrs: { 'data-initial': m.parent },
      children: [
        {
          tag: 'circle',
          attrs: { cx: r(m.center.x), cy: r(m.center.y), r: 4, class: 'sd-initial' },
        },
        {
          tag: 'path',
          attrs: { d: pathOf(m.points), class: 'sd-edge', 'marker-end': `url(#${arrowId})` },
        },
      ],
    });
  }
  for (const e of layout.edges) {
    const fromActive = active.has(e.edge.source);
    const parts: SvgEl[] = [
      {
        tag: 'path',
        attrs: {
          d: pathOf(e.points),
          class: fromActive ? 'sd-edge sd-from-active' : 'sd-edge',
          'marker-end': `url(#${arrowId})`,
          ...(e.edge.kind === 'always' || e.edge.kind === 'after'
            ? { 'stroke-dasharray': '4 3' }
            : {}),
        },
      },
    ];
    if (e.label) {
      const w = e.label.text.length * CHAR_WIDTH + 4;
      parts.push(
        {
          tag: 'rect',
          attrs: {
            x: r(e.label.x),
            y: r(e.label.y),
            width: r(w),
            height: LINE_HEIGHT,
            class: 'sd-label-bg',
          },
        },
        text(e.label.x + 2, e.label.y + 12, e.label.text, 'sd-label'),
      );
    }
    children.push({ tag: 'g', attrs: { 'data-edge': e.edge.id }, children: parts });
  }
  return {
    tag: 'svg',
    attrs: {
      xmlns: 'http://www.w3.org/2000/svg',
      viewBox: `0 0 ${r(layout.width)} ${r(layout.height)}`,
      width: r(layout.width),
      height: r(layout.height),
      role: 'img',
    },
    children,
  };
}

const escape = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Serialises an SVG element tree (for files). */
export function sceneToString(el: SvgEl, indent = ''): string {
  const attrs = Object.entries(el.attrs)
    .map(([k, v]) => ` ${k}="${escape(String(v))}"`)
    .join('');
  if (el.text !== undefined) return `${indent}<${el.tag}${attrs}>${escape(el.text)}</${el.tag}>`;
  if (!el.children?.length) return `${indent}<${el.tag}${attrs}/>`;
  const inner = el.children.map((c) => sceneToString(c, `${indent}  `)).join('\n');
  return `${indent}<${el.tag}${attrs}>\n${inner}\n${indent}</${el.tag}>`;
}
