import { isModelId } from './shared/model-id';
import { DEFAULT_MODEL_HOST, MODELS, type ModelOption } from './shared/models';
import { DEFAULT_TRAINING_URL } from './shared/training-url';

export interface RuntimeConfig {
  models: readonly ModelOption[];
  modelHost: string;
  /** Longest reply in tokens: `?maxTokens=N` (1–4096); unset = each feature's default. */
  maxNewTokens: number | undefined;
  /** `?inspect` opens the state-machine inspector; `?inspect=stately` connects Stately's instead. */
  inspect: boolean | 'stately';
  /** `?debug`: test hooks (the worker accepts `debug.loseDevice`; `window.__llmWorker`). */
  debug: boolean;
  /** `?stallSeconds=N` (1–600): how long a reply may be silent before the worker is abandoned. */
  replyStallMs: number | undefined;
}

/** Only loopback hosts may replace the model host: a link cannot point the app elsewhere. */
export function isLoopbackUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)
    );
  } catch {
    return false;
  }
}

/**
 * Query parameters for local testing and self-hosted weights:
 * `?modelHost=http://127.0.0.1:PORT/` serves models from a loopback mirror laid out like the Hub,
 * `&extraModel=owner/name` (with `&extraDtype=fp32`) adds one more model to the dropdown.
 */
export function readRuntimeConfig(location: { search: string }): RuntimeConfig {
  const params = new URLSearchParams(location.search);
  const hostParam = params.get('modelHost');
  const modelHost = hostParam && isLoopbackUrl(hostParam) ? hostParam : DEFAULT_MODEL_HOST;
  const models: ModelOption[] = [...MODELS];
  const dtype = params.get('extraDtype') ?? 'fp32';
  // `?extraModel=a/b,c/d` (or repeated): several ids, for self-hosted mirrors and tests.
  const extras = params
    .getAll('extraModel')
    .flatMap((value) => value.split(','))
    .map((id) => id.trim())
    .filter((id, i, all) => id && all.indexOf(id) === i);
  for (const extra of extras) {
    if (isModelId(extra, { requireOwner: true }) && modelHost !== DEFAULT_MODEL_HOST) {
      models.push({ value: extra, label: `${extra} (${dtype}, local)`, id: extra, dtype });
    }
  }
  const maxTokens = Number(params.get('maxTokens'));
  const maxNewTokens =
    Number.isInteger(maxTokens) && maxTokens >= 1 && maxTokens <= 4096 ? maxTokens : undefined;
  const inspectParam = params.get('inspect');
  const inspect = inspectParam === 'stately' ? 'stately' : inspectParam !== null;
  const stall = Number(params.get('stallSeconds'));
  const replyStallMs =
    Number.isInteger(stall) && stall >= 1 && stall <= 600 ? stall * 1000 : undefined;
  return { models, modelHost, maxNewTokens, inspect, debug: params.has('debug'), replyStallMs };
}

/**
 * The service's base URL: `?trainingUrl=` when it is a loopback URL (tests, another port), else
 * `VITE_TRAINING_URL`, else http://127.0.0.1:8000.
 */
export function resolveTrainingUrl(
  search: string = globalThis.location?.search ?? '',
  envUrl: string | undefined = import.meta.env.VITE_TRAINING_URL,
): string {
  const param = new URLSearchParams(search).get('trainingUrl');
  const chosen = param && isLoopbackUrl(param) ? param : envUrl || DEFAULT_TRAINING_URL;
  return chosen.replace(/\/+$/, '');
}
