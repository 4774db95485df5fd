/**
 * The folder → folder import graph of src/, derived from the code (test files left out).
 * `npm run deps:graph` writes it into docs/ARCHITECTURE.md between the deps-graph markers;
 * tests/node/deps-graph.test.ts fails when the drawn graph and the code differ.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const SRC = join(ROOT, 'src');
const DOC = join(ROOT, 'docs', 'ARCHITECTURE.md');
const START = '<!-- deps-graph:start (npm run deps:graph) -->';
const END = '<!-- deps-graph:end -->';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    if (!/\.tsx?$/.test(entry.name) || /\.(test|bench)\.tsx?$/.test(entry.name)) return [];
    if (entry.name === 'test-helpers.ts' || entry.name.endsWith('.d.ts')) return [];
    return [path];
  });
}

/** `src/ui/chat/Message.tsx` → `ui`; `src/main.tsx` → `main`. */
function folderOf(path: string): string {
  const [first = ''] = relative(SRC, path).split(sep);
  return first.replace(/\.tsx?$/, '');
}

/** Relative imports of one file: `{ target, typeOnly }`. */
function importsOf(file: string): { target: string; typeOnly: boolean }[] {
  const text = readFileSync(file, 'utf8');
  const found: { target: string; typeOnly: boolean }[] = [];
  const statement = /^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?'(\.[^']+)'/gms;
  for (const m of text.matchAll(statement)) found.push({ target: m[2] ?? '', typeOnly: !!m[1] });
  for (const m of text.matchAll(/import\(\s*'(\.[^']+)'\s*\)/g))
    found.push({ target: m[1] ?? '', typeOnly: false });
  return found
    .map(({ target, typeOnly }) => ({ target: resolve(dirname(file), target), typeOnly }))
    .filter(({ target }) => target.startsWith(SRC + sep) && !/\.(css|svg|json)$/.test(target));
}

/** Edges `from → to`, each marked type-only when every import along it is `import type`. */
export function deriveGraph(): Map<string, Map<string, boolean>> {
  const graph = new Map<string, Map<string, boolean>>();
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    for (const { target, typeOnly } of importsOf(file)) {
      const to = folderOf(target);
      if (to === from) continue;
      const edges = graph.get(from) ?? new Map<string, boolean>();
      edges.set(to, (edges.get(to) ?? true) && typeOnly);
      graph.set(from, edges);
    }
  }
  return graph;
}

export function renderGraph(graph = deriveGraph()): string {
  const lines = [...graph.keys()].sort().map((from) => {
    const edges = [...(graph.get(from) ?? new Map<string, boolean>())]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([to, typeOnly]) => (typeOnly ? `${to} (types)` : to));
    return `${from.padEnd(14)} → ${edges.join(', ')}`;
  });
  return ['```', ...lines, '```'].join('\n');
}

/** The graph drawn in the doc (between the markers), or null when the markers are missing. */
export function drawnGraph(doc = readFileSync(DOC, 'utf8')): string | null {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) return null;
  return doc.slice(start + START.length, end).trim();
}

function write() {
  const doc = readFileSync(DOC, 'utf8');
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${DOC} has no deps-graph markers`);
  const next = `${doc.slice(0, start + START.length)}\n${renderGraph()}\n${doc.slice(end)}`;
  writeFileSync(DOC, next);
  console.log(renderGraph());
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) write();
