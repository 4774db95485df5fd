/**
 * No import circles in the repository's TypeScript (src/, service/, mocks/, tests/, scripts/).
 * A circle makes a module's exports undefined while the other one evaluates, and ties two ideas
 * into one unit. Every import counts: `import type` (a type two modules share belongs in a third)
 * and a dynamic `import()` too (a lazy import back into a module that imports you is still one
 * unit split over two files).
 * Built with the TypeScript parser and resolver (no ESLint plugin: import-x's `no-cycle` needs a
 * resolver dependency and walks the graph again per file).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const FOLDERS = ['src', 'service', 'mocks', 'tests', 'scripts'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === 'node_modules' || entry.name === 'fixtures' ? [] : sourceFiles(path);
    return /\.(?:m?ts|tsx)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

const options: ts.CompilerOptions = {
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  allowImportingTsExtensions: true,
  resolveJsonModule: true,
  jsx: ts.JsxEmit.ReactJSX,
};

/** The repository files a file imports statically (specifiers resolved as the compiler does). */
function importsOf(file: string, known: Set<string>): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const specifiers: string[] = [];
  for (const statement of source.statements) {
    if (
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
      statement.moduleSpecifier &&
      ts.isStringLiteral(statement.moduleSpecifier)
    )
      specifiers.push(statement.moduleSpecifier.text);
    else if (
      ts.isImportEqualsDeclaration(statement) &&
      ts.isExternalModuleReference(statement.moduleReference) &&
      ts.isStringLiteral(statement.moduleReference.expression)
    )
      specifiers.push(statement.moduleReference.expression.text);
  }
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    )
      specifiers.push(node.arguments[0].text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers.flatMap((specifier) => {
    const target = ts.resolveModuleName(specifier, file, options, ts.sys).resolvedModule
      ?.resolvedFileName;
    return target && known.has(target) ? [target] : [];
  });
}

/** The strongly connected components of more than one file (Tarjan), or a file importing itself. */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(to) ?? 0));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node) ?? 0, index.get(to) ?? 0));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** One import path around a circle, from its first file back to it: `a → b → a`. */
function pathAround(graph: Map<string, string[]>, component: string[]): string[] {
  const members = new Set(component);
  const start = component[0] ?? '';
  const from = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i] ?? '';
    for (const to of graph.get(node) ?? []) {
      if (to === start) {
        const path = [start];
        for (let at: string | undefined = node; at !== undefined && at !== start; at = from.get(at))
          path.splice(1, 0, at);
        return [...path, start];
      }
      if (members.has(to) && !from.has(to)) {
        from.set(to, node);
        queue.push(to);
      }
    }
  }
  return component;
}

describe('imports', () => {
  it('form no circle (split the shared part into a module both import)', () => {
    const files = FOLDERS.flatMap((folder) => sourceFiles(join(ROOT, folder)));
    const known = new Set(files);
    const graph = new Map(files.map((file) => [file, importsOf(file, known)]));
    const name = (file: string) => relative(ROOT, file);
    const found = circles(graph).map((component) => {
      const path = pathAround(graph, component).map(name).join(' → ');
      return component.length > 2 ? `${path} (circle of ${component.map(name).join(', ')})` : path;
    });
    expect(found).toEqual([]);
  });
});
