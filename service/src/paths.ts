/**
 * Confining request paths to configured roots. Decisions are made on real paths (symlinks
 * resolved), so a link inside a root that points outside it is refused like `../` is.
 */
import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import { badInput } from './errors';
import { dirname, extname, isAbsolute, relative, resolve, sep, basename, join } from 'node:path';

export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && !rel.startsWith(sep));
}

function inAny(roots: readonly string[], path: string): boolean {
  return roots.some((root) => isInside(root, path));
}

function describeRoots(roots: readonly string[]): string {
  return roots.join(', ');
}

async function realpathOrNull(path: string): Promise<string | null> {
  try {
    return await realpath(path);
  } catch {
    return null;
  }
}

/** `input` resolved against `baseDir`, refused unless it lies lexically inside a root (catches `../`). */
function resolveInside(
  field: string,
  input: string,
  roots: readonly string[],
  baseDir: string,
): string {
  const lexical = resolve(baseDir, input);
  if (!inAny(roots, lexical))
    throw badInput(`${field} "${input}" is outside the allowed folders (${describeRoots(roots)})`);
  return lexical;
}

/**
 * An existing file inside `roots`: resolved against `baseDir`, checked lexically (catches `../`),
 * then by real path (catches symlinks that escape). Returns the real path.
 */
export async function confineExistingFile(
  field: string,
  input: string,
  roots: readonly string[],
  baseDir: string,
): Promise<string> {
  const lexical = resolveInside(field, input, roots, baseDir);
  const real = await realpathOrNull(lexical);
  if (real === null) throw badInput(`${field} "${input}" does not exist`);
  if (!inAny(roots, real))
    throw badInput(
      `${field} "${input}" resolves (through a symbolic link) to ${real}, outside the allowed folders (${describeRoots(roots)})`,
    );
  const info = await stat(real);
  if (!info.isFile()) throw badInput(`${field} "${input}" is not a file`);
  return real;
}

/**
 * A folder that may not exist yet, inside `roots`: its nearest existing ancestor is resolved
 * through symlinks and must be inside a root. Returns the real ancestor joined with the rest.
 */
export async function confineDirectory(
  field: string,
  input: string,
  roots: readonly string[],
  baseDir: string,
): Promise<string> {
  const lexical = resolveInside(field, input, roots, baseDir);
  let existing = lexical;
  const rest: string[] = [];
  let real = await realpathOrNull(existing);
  while (real === null) {
    const parent = dirname(existing);
    if (parent === existing) break;
    rest.unshift(basename(existing));
    existing = parent;
    real = await realpathOrNull(existing);
  }
  if (real === null || !inAny(roots, real))
    throw badInput(
      `${field} "${input}" resolves (through a symbolic link) outside the allowed folders (${describeRoots(roots)})`,
    );
  if (rest.length === 0 && !(await stat(real)).isDirectory())
    throw badInput(`${field} "${input}" exists and is not a folder`);
  return join(real, ...rest);
}

/** How a script is started: an interpreter chosen by extension, or the file itself. */
export interface Launch {
  command: string;
  args: string[];
}

/**
 * With a launcher (TRAINING_LAUNCHER, e.g. torchrun), the launcher's argv comes first and the
 * script follows it as given: the launcher starts the interpreter itself.
 */
export async function launchFor(
  script: string,
  python: string,
  launcher: readonly string[] | null = null,
): Promise<Launch> {
  const [first, ...rest] = launcher ?? [];
  if (first !== undefined) return { command: first, args: [...rest, script] };
  const ext = extname(script).toLowerCase();
  if (ext === '.py') return { command: python, args: ['-u', script] };
  if (ext === '.js' || ext === '.mjs' || ext === '.cjs')
    return { command: process.execPath, args: [script] };
  try {
    await access(script, constants.X_OK);
  } catch {
    throw badInput(
      `script_path "${script}" is neither a .py/.js/.mjs script nor an executable file`,
    );
  }
  return { command: script, args: [] };
}
