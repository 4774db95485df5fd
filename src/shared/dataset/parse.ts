import { stripJsonFences } from './fences';
import { errorMessage } from '../errors';
import { isObject, isUnknownArray } from '../guards';

/** Why a model's output could not be read as a list of items. */
export type ParseFailure = {
  ok: false;
  kind: 'empty-output' | 'not-json' | 'wrong-shape';
  detail: string;
};
export type ParseResult = { ok: true; items: unknown[] } | ParseFailure;

/** Common names models use for the list when they wrap it in an object. */
const LIST_KEYS = ['entries', 'data', 'dataset', 'pairs', 'items', 'examples', 'questions'];

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    const value: unknown = JSON.parse(text);
    return { ok: true, value };
  } catch (error) {
    return { ok: false, error: errorMessage(error) };
  }
}

/** The outermost `[...]` or `{...}` of a reply that wraps JSON in prose, if any. */
function embeddedJson(text: string): string | null {
  const start = text.search(/[[{]/);
  if (start < 0) return null;
  const close = text[start] === '[' ? ']' : '}';
  const end = text.lastIndexOf(close);
  return end > start ? text.slice(start, end + 1) : null;
}

function itemsOf(value: unknown): unknown[] | string {
  if (isUnknownArray(value)) return value;
  if (!isObject(value))
    return `expected a list of {prompt, completion} objects, got ${value === null ? 'null' : typeof value}`;
  const record = value;
  if ('prompt' in record || 'completion' in record) return [record];
  for (const key of LIST_KEYS) {
    const list = record[key];
    if (isUnknownArray(list)) return list;
  }
  const lists = Object.values(record).filter((v): v is unknown[] => Array.isArray(v));
  if (lists.length === 1 && lists[0]) return lists[0];
  const keys = Object.keys(record).slice(0, 5).join(', ') || 'no keys';
  return `expected a list of {prompt, completion} objects, got an object with ${keys}`;
}

/**
 * Reads a model's reply as a list of dataset items: fences stripped (PRODUCT.md §4), then JSON parsed. A
 * bare list, an object holding one list (`{"entries": [...]}`) or a single pair are accepted; JSON
 * wrapped in a sentence of prose is recovered. The items themselves are checked by `validateEntries`.
 */
export function parseDatasetOutput(raw: string): ParseResult {
  const text = stripJsonFences(raw);
  if (!text) return { ok: false, kind: 'empty-output', detail: 'the model returned no text' };
  let parsed = parseJson(text);
  if (!parsed.ok) {
    const inner = embeddedJson(text);
    const retry = inner ? parseJson(inner) : null;
    if (!retry?.ok) return { ok: false, kind: 'not-json', detail: parsed.error };
    parsed = retry;
  }
  const items = itemsOf(parsed.value);
  if (typeof items === 'string') return { ok: false, kind: 'wrong-shape', detail: items };
  if (items.length === 0) return { ok: false, kind: 'wrong-shape', detail: 'the list is empty' };
  return { ok: true, items };
}
