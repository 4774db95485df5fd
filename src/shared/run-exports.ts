/**
 * A run's GGUF exports, read the same way by the service (from disk) and the mock's fake runs:
 * the trainer's `gguf/export.json` (training/gguf_export.py, format 1) and `gguf.skipped.json`
 * made into GET /runs/{id}/exports' answer, and which file names may be downloaded; and which
 * files the adapter and merged-model archives pack, or why there is none.
 */
import { isRecord } from './guards';
import {
  GGUF_TYPES,
  type ArchiveKind,
  type GgufExports,
  type GgufFile,
  type RunArchive,
  type RunInfo,
} from './training-api';

/** The Ollama Modelfile's name in `gguf/`. */
export const MODELFILE = 'Modelfile';

/** A file name the exports route serves: one plain segment, never a path. */
const EXPORT_FILE_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,199}$/;

/** What was found in the run's output folder (each null when absent). */
export interface GgufFolder {
  /** `gguf/export.json`, parsed. */
  report: unknown;
  /** `gguf.skipped.json`, parsed. */
  skipped: unknown;
  /** The Modelfile's size on disk, when it exists. */
  modelfileBytes: number | null;
  /** An export asked after the run (POST /runs/{id}/exports) still being written, if any. */
  writing?: GgufWriting | null;
}

/** A GGUF export being written: the types asked and since when (ISO time). */
export interface GgufWriting {
  types: readonly string[];
  since: string;
}

const num = (value: unknown) => (typeof value === 'number' ? value : null);
const str = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim() : null);

/** The run asked for GGUF (training option `gguf` other than `none`). */
export const askedForGguf = (run: Pick<RunInfo, 'options'>) => {
  const gguf = run.options?.gguf;
  return typeof gguf === 'string' && gguf !== 'none';
};

/**
 * One entry of export.json's `files`, or a sentence naming what is wrong (`where`: the file read).
 */
function ggufFile(type: string, raw: unknown, where: string): GgufFile {
  const known = GGUF_TYPES.find((name) => name === type);
  if (!known || !isRecord(raw))
    throw new Error(
      `${where}: files.${type} is not a GGUF entry (types: ${GGUF_TYPES.join(', ')})`,
    );
  const name = str(raw.file);
  if (!name || !EXPORT_FILE_NAME.test(name))
    throw new Error(
      `${where}: files.${type}.file is not a file name (got ${JSON.stringify(raw.file)})`,
    );
  const passed = raw.published === true || raw.passed === true;
  return {
    name,
    type: known,
    bytes: num(raw.bytes),
    passed,
    failure: passed ? null : (str(raw.failure) ?? 'its check in llama.cpp failed'),
    tokens_agreed: num(raw.tokens_agreed),
    tokens_compared: num(raw.tokens_compared),
    max_abs_diff: num(raw.max_abs_diff),
  };
}

/**
 * GET /runs/{id}/exports' `gguf` for a run and what its output folder holds. Throws an Error whose
 * message names the malformed field when export.json is not the trainer's format.
 */
export function ggufExports(
  run: Pick<RunInfo, 'id' | 'state' | 'options'>,
  folder: GgufFolder,
  where: string,
): GgufExports {
  const none = (reason: string): GgufExports => ({
    state: 'none',
    reason,
    files: [],
    modelfile: null,
    modelfile_skipped: null,
  });
  if (folder.writing)
    return {
      ...none(ggufBeingWritten(run.id, folder.writing)),
      state: 'writing',
    };
  if (!askedForGguf(run) && folder.report === null && folder.skipped === null)
    return none(
      'This run was not asked for GGUF (Advanced: "GGUF for llama.cpp and Ollama" when starting a run, or "Write GGUF" here).',
    );
  if (run.state === 'running')
    return none(`Run ${run.id} is still running; its GGUF files are written once training ends.`);
  const report = folder.report;
  const files: GgufFile[] = [];
  if (report !== null) {
    if (!isRecord(report) || !isRecord(report.files))
      throw new Error(`${where}: no "files" object (not the trainer's export.json)`);
    for (const [type, raw] of Object.entries(report.files)) files.push(ggufFile(type, raw, where));
  }
  const skippedReason = isRecord(folder.skipped) ? str(folder.skipped.reason) : null;
  const published = files.filter((file) => file.passed);
  if (published.length === 0)
    return {
      ...none(
        skippedReason ??
          `Run ${run.id} ended ${run.state} without GGUF files (the trainer wrote no gguf/).`,
      ),
      state: skippedReason || files.length > 0 ? 'skipped' : 'none',
      files,
    };
  const modelfile =
    isRecord(report) && isRecord(report.modelfile) && folder.modelfileBytes !== null
      ? { name: MODELFILE, bytes: folder.modelfileBytes }
      : null;
  const modelfileSkipped = isRecord(report) ? str(report.modelfile_skipped) : null;
  return { state: 'written', reason: null, files, modelfile, modelfile_skipped: modelfileSkipped };
}

/** The names GET /runs/{id}/exports/gguf/{file} serves: published files and the Modelfile. */
export function downloadableNames(gguf: GgufExports): string[] {
  return [
    ...gguf.files.filter((file) => file.passed).map((file) => file.name),
    ...(gguf.modelfile ? [gguf.modelfile.name] : []),
  ];
}

/** The answer to a file name the run does not offer for download. */
export const noExportFile = (id: string, file: string) =>
  `Run ${id} offers no export file "${file}" (see GET /runs/${id}/exports)`;

/** A GGUF export being written, in words (its state's reason; a download's refusal). */
export const ggufBeingWritten = (id: string, writing: GgufWriting) =>
  `Run ${id}'s GGUF ${writing.types.join(' and ')} is being written (since ${writing.since}); each file is checked in llama.cpp before it is offered.`;

/** The answer to a download while the run still runs. */
export const exportWhileRunning = (id: string) =>
  `Run ${id} is still running (state running); its exports can be downloaded once it has ended`;

/** Where the service sends one of a run's export files (GET /runs/{id}/exports/gguf/{file}). */
export const exportFileUrl = (baseUrl: string, runId: string, file: string) =>
  `${baseUrl.replace(/\/+$/, '')}/runs/${encodeURIComponent(runId)}/exports/gguf/${encodeURIComponent(file)}`;

/** What an archive is called in sentences. */
export const ARCHIVE_LABELS: Record<ArchiveKind, string> = {
  adapter: 'LoRA adapter',
  merged: 'merged model',
};

/**
 * Files at the top of the output folder that are the trainer's records, not the adapter's: the
 * split, the exports' skip reasons, logs, anything hidden or half-written.
 */
const NOT_ADAPTER =
  /^(?:split\.json|run\.json|model_card\.json|.*\.check\.json|.*\.skipped\.json|.*\.log|.*\.jsonl|.*\.tmp)$/;

/** The trainer's report of the adapter's check with PEFT, in the output folder. */
export const ADAPTER_CHECK = 'adapter.check.json';

/**
 * The adapter's check from ADAPTER_CHECK's contents (parsed JSON, or its text when it is not
 * JSON): null when there is none (undefined or null: a run from before the check); a report not
 * in the trainer's form is a failed check naming the file.
 */
export function adapterCheck(raw: unknown): NonNullable<RunArchive['check']> | null {
  if (raw === null || raw === undefined) return null;
  if (!isRecord(raw) || typeof raw.ok !== 'boolean')
    return {
      ok: false,
      max_logit_difference: null,
      reason: `${ADAPTER_CHECK} is not the trainer's report (no "ok")`,
    };
  return {
    ok: raw.ok,
    max_logit_difference: num(raw.max_logit_difference),
    reason: raw.ok ? null : (str(raw.reason) ?? 'no reason given'),
  };
}

/** Whether a plain file of a folder goes into its archive (the adapter: not the run's records). */
export const archived = (kind: ArchiveKind, name: string) =>
  EXPORT_FILE_NAME.test(name) && (kind === 'merged' || !NOT_ADAPTER.test(name));

/** Where each archive's files are, inside the run's output folder ('' is the folder itself). */
export const ARCHIVE_FOLDERS: Record<ArchiveKind, string> = { adapter: '', merged: 'merged' };

/** The zip's file name, and the folder its files unpack into (`<run>-<kind>`). */
export const archiveStem = (runId: string, kind: ArchiveKind) => `${runId}-${kind}`;

/** A folder's plain files that an archive packs, with their sizes; null: the folder is missing. */
export interface ArchiveFolder {
  path: string;
  files: { name: string; bytes: number }[] | null;
  /** The adapter's ADAPTER_CHECK as read (see adapterCheck); absent or null when there is none. */
  check?: unknown;
}

/**
 * Whether the run's archive of `kind` can be downloaded, from what its folder holds: a sentence
 * naming the cause when it cannot (still running, a full fine-tune's adapter, the folder deleted,
 * no model in it, a run that did not succeed, an adapter whose check with PEFT failed).
 */
export function archiveRefusal(
  run: Pick<RunInfo, 'id' | 'state' | 'method'>,
  kind: ArchiveKind,
  folder: ArchiveFolder,
): string | null {
  const label = ARCHIVE_LABELS[kind];
  if (run.state === 'running')
    return `Run ${run.id} is still running; its ${label} is written once training ends.`;
  if (kind === 'adapter' && run.method === 'full')
    return 'A full fine-tune has no LoRA adapter: the merged model is the whole trained model.';
  if (folder.files === null)
    return `Run ${run.id}'s ${label} folder ${folder.path} no longer exists (deleted or moved?)`;
  const names = new Set(folder.files.map((file) => file.name));
  if (kind === 'adapter' && !names.has('adapter_config.json'))
    return `No LoRA adapter in ${folder.path} (adapter_config.json is missing)`;
  const check = kind === 'adapter' ? adapterCheck(folder.check) : null;
  if (check && !check.ok)
    return `Run ${run.id}'s LoRA adapter failed its check with PEFT (${ADAPTER_CHECK}): ${check.reason}`;
  if (kind === 'merged') {
    if (!names.has('config.json') || ![...names].some((name) => name.endsWith('.safetensors')))
      return `No model in ${folder.path} (config.json or the .safetensors weights are missing)`;
    if (run.state !== 'succeeded')
      return `Run ${run.id} ended ${run.state}: its merged model may be incomplete.`;
  }
  return null;
}

/** GET /runs/{id}/exports' entry for one archive; `zipBytes`: its size once zipped. */
export async function runArchive(
  run: Pick<RunInfo, 'id' | 'state' | 'method'>,
  kind: ArchiveKind,
  folder: ArchiveFolder,
  zipBytes: (files: { name: string; bytes: number }[]) => Promise<number>,
): Promise<RunArchive> {
  const reason = archiveRefusal(run, kind, folder);
  const files = folder.files ?? [];
  const check = kind === 'adapter' ? adapterCheck(folder.check) : null;
  return reason === null
    ? {
        kind,
        name: `${archiveStem(run.id, kind)}.zip`,
        bytes: await zipBytes(files),
        files: files.length,
        reason,
        check,
      }
    : { kind, name: null, bytes: null, files: files.length, reason, check };
}

/** Where the service sends one of a run's archives (GET /runs/{id}/exports/archive/{kind}). */
export const exportArchiveUrl = (baseUrl: string, runId: string, kind: ArchiveKind) =>
  `${baseUrl.replace(/\/+$/, '')}/runs/${encodeURIComponent(runId)}/exports/archive/${kind}`;
