/**
 * Browser-ready models: a finished run's `<output_dir>/web/` folder in the layout transformers.js
 * loads (config.json, tokenizer files, onnx/model*.onnx). Listed at GET /models and served in the
 * Hub's layout, `/trained/<name>/resolve/main/<file>`, streamed from disk.
 */
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import {
  TRAINED_MODEL_OWNER,
  type ModelVariant,
  type TrainedModel,
} from '../../src/shared/training-api';
import { badInput, notFound } from './errors';
import { trainingMessages } from '../../src/shared/training-messages';
import { isInside } from './paths';

/** transformers.js file suffix → dtype name (`model_q4f16.onnx` → q4f16). */
const VARIANT_FILES: Record<string, ModelVariant> = {
  'model.onnx': 'fp32',
  'model_fp16.onnx': 'fp16',
  'model_q4.onnx': 'q4',
  'model_q4f16.onnx': 'q4f16',
  'model_quantized.onnx': 'q8',
  'model_int8.onnx': 'int8',
  'model_uint8.onnx': 'uint8',
  'model_bnb4.onnx': 'bnb4',
};

export interface WebFolder {
  ok: boolean;
  /** Why it is not usable, when !ok. */
  reason: string | null;
  variants: ModelVariant[];
  bytes: number;
}

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await folderBytes(path);
    else if (entry.isFile()) total += (await stat(path)).size;
  }
  return total;
}

async function nonEmptyFile(path: string): Promise<boolean> {
  try {
    const info = await stat(path);
    return info.isFile() && info.size > 0;
  } catch {
    return false;
  }
}

/** Checks a browser-ready folder: config, tokenizer and at least one ONNX weights file. */
export async function inspectWebFolder(web: string): Promise<WebFolder> {
  const none = (reason: string): WebFolder => ({ ok: false, reason, variants: [], bytes: 0 });
  try {
    if (!(await stat(web)).isDirectory()) return none(`${web} is not a folder`);
  } catch {
    return none(`no browser-ready copy: ${web} does not exist (trained with --no-web-export?)`);
  }
  if (!(await nonEmptyFile(join(web, 'config.json')))) return none('web/ lacks config.json');
  if (!(await nonEmptyFile(join(web, 'tokenizer.json'))))
    return none('web/ lacks the tokenizer (tokenizer.json)');
  if (!(await nonEmptyFile(join(web, 'tokenizer_config.json'))))
    return none('web/ lacks the tokenizer (tokenizer_config.json)');
  const variants: ModelVariant[] = [];
  for (const [file, variant] of Object.entries(VARIANT_FILES))
    if (await nonEmptyFile(join(web, 'onnx', file))) variants.push(variant);
  if (variants.length === 0) return none('web/ lacks the weights (no onnx/model*.onnx)');
  return { ok: true, reason: null, variants, bytes: await folderBytes(web) };
}

/** A model name from an output folder: Hub-safe characters only. */
export function modelName(outputDir: string): string {
  const name = basename(outputDir)
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+/, '')
    .slice(0, 96);
  return name || 'model';
}

export const modelId = (name: string) => `${TRAINED_MODEL_OWNER}/${name}`;

/**
 * Why the trainer did not export a browser copy, from `<output_dir>/web.skipped.json`
 * (`{"reason": "…"}`, written when the architecture is not supported or a check failed), or null.
 */
export async function readSkippedExport(outputDir: string): Promise<string | null> {
  try {
    const raw: unknown = JSON.parse(await readFile(join(outputDir, 'web.skipped.json'), 'utf8'));
    const reason =
      typeof raw === 'object' && raw !== null && 'reason' in raw ? raw.reason : undefined;
    return typeof reason === 'string' && reason.trim()
      ? trainingMessages.exportPublishedNothing(reason.trim())
      : null;
  } catch {
    return null;
  }
}

/** What the model listing needs of a run. */
export interface ModelSource {
  id: string;
  state: string;
  base_model: string;
  output_dir: string;
  model_id: string | null;
  base_model_id?: string | null;
  ended_at: string | null;
  started_at: string;
}

/** What the model routes read of the runs: every run's record. */
export interface ModelSources {
  records(): readonly ModelSource[];
}

/** A trained (or base-exported) model's id → the folder its files are served from. */
export function modelFolder(sources: readonly ModelSource[], id: string): string | null {
  for (const run of sources) {
    if (run.state !== 'succeeded') continue;
    if (run.model_id === id) return join(run.output_dir, 'web');
    if (run.base_model_id === id) return join(run.output_dir, 'base-web');
  }
  return null;
}

/** GET /models: every succeeded run's complete `web/` (and `base-web/`), newest first. */
export async function listModels(sources: readonly ModelSource[]): Promise<TrainedModel[]> {
  const models: TrainedModel[] = [];
  for (const run of sources) {
    if (run.state !== 'succeeded') continue;
    const entries = [
      { id: run.model_id, dir: 'web', role: 'fine-tuned' as const },
      { id: run.base_model_id ?? null, dir: 'base-web', role: 'base' as const },
    ];
    for (const entry of entries) {
      if (!entry.id) continue;
      const web = await inspectWebFolder(join(run.output_dir, entry.dir));
      if (!web.ok) continue;
      models.push({
        id: entry.id,
        name: entry.id.slice(TRAINED_MODEL_OWNER.length + 1),
        run_id: run.id,
        base_model: run.base_model,
        output_dir: run.output_dir,
        variants: web.variants,
        bytes: web.bytes,
        created_at: run.ended_at ?? run.started_at,
        role: entry.role,
      });
    }
  }
  return models.sort((a, b) => b.created_at.localeCompare(a.created_at));
}

/** `file` of a model request: `a/b.c` segments only; never `..`, `.`, `\`, or absolute. */
const FILE_PATTERN =
  /^[A-Za-z0-9_][A-Za-z0-9._-]{0,199}(?:\/[A-Za-z0-9_][A-Za-z0-9._-]{0,199}){0,7}$/;

export function checkModelFile(file: string): void {
  if (!FILE_PATTERN.test(file) || file.split('/').some((s) => s === '.' || s === '..'))
    throw badInput(`"${file}" is not a file name of a model folder`);
}

export interface OpenedFile {
  size: number;
  mtime: Date;
  /** Resolved real path, inside web/. */
  path: string;
}

/** Resolves `file` inside `web` by real path (a symlink that leads out is a 404). */
export async function resolveModelFile(web: string, file: string): Promise<OpenedFile> {
  checkModelFile(file);
  const missing = () => notFound(`No file "${file}" in this model`);
  let realWeb: string;
  let real: string;
  try {
    realWeb = await realpath(web);
    real = await realpath(join(realWeb, file));
  } catch {
    throw missing();
  }
  if (!isInside(realWeb, real) || real === realWeb) throw missing();
  const info = await stat(real);
  if (!info.isFile()) throw missing();
  return { size: info.size, mtime: info.mtime, path: real };
}
