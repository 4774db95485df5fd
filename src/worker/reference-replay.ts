/**
 * Reading the trainer's reference (`export.json`) for the worker's replay after a load. It is
 * read from the model's own host (the training service), never from the Hub, and kept in the
 * model cache beside the model's files (same key layout), so the check also runs offline and the
 * Stored models dialog lists and deletes it with the model. The replay itself (transformers.js's
 * generate) is in llm.worker.ts; the rule is src/shared/reference-check.ts.
 */
import { DEFAULT_MODEL_HOST } from '../shared/models';
import { errorMessage } from '../shared/errors';
import { parseTrainerReference, type TrainerReference } from '../shared/reference-check';
import { MODEL_CACHE } from './model-storage';

/** The file the trainer writes beside the weights (training/web_export.py). */
export const EXPORT_REPORT = 'export.json';

/** `{host}{id}/resolve/main/export.json`: the Hub layout the training service serves. */
export function exportReportUrl(host: string, id: string): string {
  return `${host.replace(/\/*$/, '/')}${id}/resolve/main/${EXPORT_REPORT}`;
}

export interface ReportDeps {
  fetch: (url: string, init?: RequestInit) => Promise<Response>;
  /** The browser's CacheStorage (absent: nothing kept). */
  caches?: CacheStorage | undefined;
}

/**
 * The reference for the variant `dtype` of model `id` served by `host`, or why there is none (a
 * sentence for "Not checked on this GPU: …"). The Hub is refused outright: a trained model's
 * name must never reach it.
 */
export async function readTrainerReference(
  spec: { id: string; dtype: string; host?: string | undefined },
  deps: ReportDeps,
): Promise<TrainerReference | { missing: string }> {
  const host = spec.host;
  if (!host || new URL(host).origin === new URL(DEFAULT_MODEL_HOST).origin)
    return { missing: 'the model is not served by a training service' };
  const url = exportReportUrl(host, spec.id);
  let report: unknown;
  try {
    const response = await deps.fetch(url, { cache: 'no-store' });
    if (response.status === 404)
      return { missing: `the training service has no ${EXPORT_REPORT} for this model` };
    if (!response.ok) throw new Error(`${response.status} ${response.statusText}`.trim());
    const text = await response.text();
    report = JSON.parse(text);
    await keep(deps.caches, url, text).catch(() => undefined);
  } catch (error) {
    const stored = await storedReport(deps.caches, url).catch(() => null);
    if (stored === null)
      return { missing: `could not read ${EXPORT_REPORT} (${errorMessage(error)})` };
    report = stored;
  }
  return parseTrainerReference(report, spec.dtype);
}

async function keep(caches: CacheStorage | undefined, url: string, text: string) {
  if (!caches) return;
  const cache = await caches.open(MODEL_CACHE);
  await cache.put(
    url,
    new Response(text, { headers: { 'content-type': 'application/json; charset=utf-8' } }),
  );
}

async function storedReport(caches: CacheStorage | undefined, url: string): Promise<unknown> {
  if (!caches || !(await caches.has(MODEL_CACHE))) return null;
  const response = await (await caches.open(MODEL_CACHE)).match(url);
  return response ? JSON.parse(await response.text()) : null;
}
