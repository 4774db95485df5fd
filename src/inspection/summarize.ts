/** Short text for event payloads and context values (run only for what is shown). */
import { isActorRef, actorLabel } from './actor-tree';

export const MAX_STRING = 120;

export function truncate(text: string, max = MAX_STRING): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

function short(value: unknown, depth: number): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'string') return JSON.stringify(truncate(value, 40));
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'function') return 'ƒ';
  if (isActorRef(value)) return `@${actorLabel(value)}`;
  if (Array.isArray(value)) return `[${value.length}]`;
  if (typeof value === 'object') {
    if (depth > 0) return '{…}';
    const entries = Object.entries(value).slice(0, 4);
    return `{${entries.map(([k, v]) => `${k}: ${short(v, depth + 1)}`).join(', ')}}`;
  }
  return typeof value;
}

/** `{ message: {status: "update", output: "Hi"} }` → `message: {status: "update", …}`. */
export function summarizePayload(event: { type: string } & Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(event)) {
    if (key === 'type') continue;
    parts.push(`${key}: ${short(value, 0)}`);
    if (parts.join(', ').length > 160) break;
  }
  return truncate(parts.join(', '), 160);
}

/** Key that groups high-frequency events: worker messages are told apart by status. */
export function eventKey(event: { type: string } & Record<string, unknown>): string {
  if (event.type === 'worker.message') {
    const message = event.message;
    if (typeof message === 'object' && message !== null && 'status' in message)
      return `worker.message(${String(message.status)})`;
  }
  return event.type;
}
