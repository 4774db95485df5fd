/**
 * The service's configuration, from environment variables (documented in service/README.md).
 * Every path is absolute and every root is resolved through symlinks once, at start-up.
 */
import { realpathSync, mkdirSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { DATASET_LIMIT_BYTES } from '../../src/shared/training-api';

/** The repository root: service/src/../.. */
export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');

export interface ServiceConfig {
  host: string;
  port: number;
  /** Relative paths in requests are resolved against this folder. */
  baseDir: string;
  /** Where run records, logs and uploaded datasets live. */
  dataDir: string;
  /**
   * Where the trainer keeps base-model browser exports to reuse across runs (export_base), passed
   * to it as TRAINING_BASE_EXPORTS; default `<dataDir>/base-exports`.
   */
  baseExportsDir: string;
  /**
   * huggingface_hub's cache of downloaded base models, passed to every trainer as HF_HUB_CACHE
   * (HUB_CACHE_DIR, else the service's own HF_HUB_CACHE; default `<dataDir>/hub-cache`: inside
   * the data folder, where the user sees it, and GET /hub-cache lists it).
   */
  hubCacheDir: string;
  /** Scripts may only be run from inside these folders (real paths). */
  scriptRoots: string[];
  /** data_file must be inside these folders (real paths). */
  dataRoots: string[];
  /** output_dir must be inside these folders (real paths). */
  outputRoots: string[];
  /** Origins allowed to call the service from a browser (never 'null'). */
  allowedOrigins: string[];
  /**
   * Interpreter for .py scripts (TRAINING_PYTHON), or null: the project's environment
   * (`venvDir`/bin/python) when it exists, else `python3` (see trainer-env.ts).
   */
  python: string | null;
  /** The trainer's virtual environment, made by `npm run trainer:setup` (TRAINER_VENV_DIR). */
  venvDir: string;
  /** The set-up POST /trainer/setup runs: fixed argv, never from a request. */
  setupCommand: string[];
  /** Prints the interpreter's packages and device as JSON (GET /trainer). */
  infoScript: string;
  /** Writes and checks GGUF from a run's merged model (POST /runs/{id}/exports): fixed. */
  ggufExportScript: string;
  /** TRAINING_LAUNCHER: argv placed before the script (torchrun, accelerate launch), or null. */
  launcher: string[] | null;
  /** Between SIGTERM and SIGKILL when a run is cancelled, in ms. */
  killGraceMs: number;
  /** Largest request body for POST /train and POST /runs/{id}/cancel, in bytes. */
  bodyLimit: number;
  /** Largest dataset accepted by PUT /datasets/{name}, in bytes. */
  datasetLimit: number;
  /** Longest log line kept; the rest of a longer line is dropped and counted. */
  maxLineChars: number;
  /** Committed log lines kept in memory per run (the rest are on disk). */
  ringLines: number;
}

export const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '::1'];

function list(value: string | undefined, sep: string): string[] | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  return value
    .split(sep)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** TRAINING_LAUNCHER: a JSON array of non-empty strings, e.g. ["torchrun","--standalone"]. */
export function parseLauncher(value: string | undefined): string[] | null {
  if (value === undefined || value.trim() === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    parsed = undefined;
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length === 0 ||
    !parsed.every((s): s is string => typeof s === 'string' && s.trim() !== '' && !s.includes('\0'))
  )
    throw new Error(
      `TRAINING_LAUNCHER must be a JSON array of non-empty strings, e.g. ["torchrun","--standalone","--nproc_per_node=4"]; got ${JSON.stringify(value)}`,
    );
  return parsed;
}

function int(name: string, value: string | undefined, fallback: number, min: number, max: number) {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${value}"`);
  return n;
}

/** Resolves, creates when missing (data folders only) and realpaths a root. */
function root(path: string, baseDir: string, create: boolean): string {
  const abs = isAbsolute(path) ? path : resolve(baseDir, path);
  if (create) mkdirSync(abs, { recursive: true });
  return realpathSync(abs);
}

/** Builds the configuration from `env` (process.env by default); throws a clear Error if invalid. */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  overrides: Partial<ServiceConfig> = {},
): ServiceConfig {
  const host = env.TRAINING_HOST ?? '127.0.0.1';
  if (!LOOPBACK_HOSTS.includes(host))
    throw new Error(
      `TRAINING_HOST must be a loopback address (${LOOPBACK_HOSTS.join(', ')}): the service runs programs and must not be reachable from the network; got "${host}"`,
    );
  const allowedOrigins = list(env.TRAINING_ALLOWED_ORIGINS, ',') ?? [
    'http://127.0.0.1:5173',
    'http://localhost:5173',
  ];
  for (const origin of allowedOrigins) {
    if (origin === 'null' || origin === '*' || !/^https?:\/\/[^/]+$/.test(origin))
      throw new Error(
        `TRAINING_ALLOWED_ORIGINS holds "${origin}": each entry must be a scheme://host[:port] origin ('null' and '*' are never allowed)`,
      );
  }
  const baseDir = realpathSync(env.TRAINING_BASE_DIR ?? REPO_ROOT);
  const dataDir = root(env.TRAINING_DATA_DIR ?? 'service-data', baseDir, true);
  const scriptRoots = (list(env.TRAINING_SCRIPT_ROOTS, delimiter) ?? ['training']).map((p) =>
    root(p, baseDir, false),
  );
  const dataRoots = (list(env.TRAINING_DATA_ROOTS, delimiter) ?? [dataDir]).map((p) =>
    root(p, baseDir, true),
  );
  const outputRoots = (list(env.TRAINING_OUTPUT_ROOTS, delimiter) ?? [dataDir]).map((p) =>
    root(p, baseDir, true),
  );
  return {
    host,
    port: int('TRAINING_PORT', env.TRAINING_PORT, 8000, 0, 65535),
    baseDir,
    dataDir,
    baseExportsDir: resolve(dataDir, env.TRAINING_BASE_EXPORTS ?? 'base-exports'),
    hubCacheDir: resolve(
      baseDir,
      env.HUB_CACHE_DIR || env.HF_HUB_CACHE || join(dataDir, 'hub-cache'),
    ),
    scriptRoots,
    dataRoots,
    outputRoots,
    allowedOrigins,
    python: env.TRAINING_PYTHON ?? null,
    venvDir: resolve(env.TRAINER_VENV_DIR ?? resolve(REPO_ROOT, '.venv')),
    setupCommand: [process.execPath, resolve(REPO_ROOT, 'scripts', 'trainer-setup.mjs')],
    infoScript: resolve(REPO_ROOT, 'training', 'trainer_info.py'),
    ggufExportScript: resolve(REPO_ROOT, 'training', 'gguf_export.py'),
    launcher: parseLauncher(env.TRAINING_LAUNCHER),
    killGraceMs: int('TRAINING_KILL_GRACE_MS', env.TRAINING_KILL_GRACE_MS, 5000, 0, 600_000),
    // The largest body: a 30,000-character chat template, escaped in JSON (up to 6 bytes each).
    bodyLimit: int('TRAINING_BODY_LIMIT', env.TRAINING_BODY_LIMIT, 256 * 1024, 256, 1 << 20),
    datasetLimit: int(
      'TRAINING_DATASET_LIMIT',
      env.TRAINING_DATASET_LIMIT,
      DATASET_LIMIT_BYTES,
      1024,
      1 << 30,
    ),
    maxLineChars: int('TRAINING_MAX_LINE_CHARS', env.TRAINING_MAX_LINE_CHARS, 8192, 80, 1 << 20),
    ringLines: 1000,
    ...overrides,
  };
}
