import { createElement, type ReactElement } from 'react';
import type { SvgEl } from '../../inspection/svg-scene';

const PROP_NAMES: Record<string, string> = {
  class: 'className',
  'stroke-dasharray': 'strokeDasharray',
  'marker-end': 'markerEnd',
  'stroke-width': 'strokeWidth',
};

/** Turns the shared SVG element tree into React elements. */
export function sceneToReact(el: SvgEl, key?: string | number): ReactElement {
  const props: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(el.attrs)) props[PROP_NAMES[name] ?? name] = value;
  const children = el.text ?? el.children?.map((child, i) => sceneToReact(child, i));
  return createElement(el.tag, { ...props, key }, children);
}
