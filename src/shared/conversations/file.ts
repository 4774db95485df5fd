/**
 * Conversation files: JSON export (re-importable) and Markdown export, and the import check.
 * Pure: the UI reads the file, these functions decide.
 */
import { sanitizeSettings } from '../generation-settings';
import { isObject, isRecord } from '../guards';
import type { WhenTooLong } from '../worker-protocol';
import type { Conversation, ConversationMessage } from './types';
import { titleOf } from './types';

/**
 * Version of the exported JSON format: 2 adds a message's other versions (`alternatives`,
 * `version`) and how a reply ended (`ended`), and may carry the context-window state
 * (`whenTooLong`, `omitted`: optional, so a version 2 file without them is as before); version 1
 * files still import.
 */
export const EXPORT_VERSION = 2;
/** The oldest version this app imports. */
const OLDEST_VERSION = 1;
export const EXPORT_FORMAT = 'local-llm-studio.conversation';
/** Larger files are refused before they are read. */
export const IMPORT_MAX_BYTES = 5 * 1024 * 1024;
/** Messages in a file, every version of every branch counted. */
const MAX_MESSAGES = 10_000;

export interface ConversationFile {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  title: string;
  modelId: string;
  settings: Conversation['settings'];
  exportedAt: string;
  messages: FileMessage[];
  /** 'refuse' where the conversation refuses a turn past the window; absent: oldest left out. */
  whenTooLong?: WhenTooLong;
  /** How many first messages the latest reply's prompt left out; absent: none. */
  omitted?: number;
}

type FileMessage = Pick<ConversationMessage, 'role' | 'content'> & Partial<ConversationMessage>;

function toFileMessage(m: ConversationMessage): FileMessage {
  const out: FileMessage = { role: m.role, content: m.content };
  if (m.thinking) out.thinking = m.thinking;
  if (m.figures) out.figures = m.figures;
  if (m.ended) out.ended = m.ended;
  if (m.interrupted || m.streaming) out.interrupted = true;
  if (m.alternatives?.length) {
    out.alternatives = m.alternatives.map((branch) => branch.map(toFileMessage));
    if (m.version !== undefined) out.version = m.version;
  }
  return out;
}

export function toConversationFile(conversation: Conversation, now = new Date()): ConversationFile {
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    title: titleOf(conversation),
    modelId: conversation.modelId,
    settings: conversation.settings,
    exportedAt: now.toISOString(),
    messages: conversation.messages.map(toFileMessage),
    ...(conversation.whenTooLong ? { whenTooLong: conversation.whenTooLong } : {}),
    ...(conversation.omitted ? { omitted: conversation.omitted } : {}),
  };
}

export function toJson(conversation: Conversation, now?: Date): string {
  return JSON.stringify(toConversationFile(conversation, now), null, 2) + '\n';
}

export function toMarkdown(conversation: Conversation): string {
  const s = conversation.settings;
  const lines = [
    `# ${titleOf(conversation)}`,
    '',
    `- Model: ${conversation.modelId || '(none)'}`,
    `- Temperature ${s.temperature}, top p ${s.topP}, max new tokens ${s.maxNewTokens}, repetition penalty ${s.repetitionPenalty}`,
  ];
  if (s.systemPrompt) lines.push(`- System prompt: ${s.systemPrompt.replace(/\s+/g, ' ')}`);
  for (const [i, m] of conversation.messages.entries()) {
    if (i > 0 && i === conversation.omitted)
      lines.push('', '*(Earlier messages are no longer seen by the model.)*');
    lines.push('', m.role === 'user' ? '## User' : '## Assistant', '');
    if (m.thinking)
      lines.push('<details><summary>Thinking</summary>', '', m.thinking, '', '</details>', '');
    lines.push(m.content);
    if (m.interrupted || m.streaming) lines.push('', '*(interrupted)*');
  }
  return lines.join('\n') + '\n';
}

/** A file name from the title: letters, digits and dashes only. */
export function exportFileName(conversation: Conversation, extension: 'json' | 'md'): string {
  const slug = titleOf(conversation)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return `${slug || 'conversation'}.${extension}`;
}

export type ImportError =
  | { kind: 'too-large'; message: string }
  | { kind: 'malformed'; message: string }
  | { kind: 'wrong-version'; message: string };

export type ImportResult =
  | { ok: true; conversation: Omit<Conversation, 'id' | 'createdAt' | 'updatedAt'> }
  | { ok: false; error: ImportError };

const malformed = (why: string): ImportResult => ({
  ok: false,
  error: { kind: 'malformed', message: `This is not a conversation file: ${why}` },
});

/** Counts the messages read so far (every branch's) against MAX_MESSAGES. */
interface Budget {
  left: number;
}

function checkEnded(value: unknown): ConversationMessage['ended'] {
  if (!isObject(value)) return undefined;
  if (value.by === 'stop') return { by: 'stop' };
  if (value.by === 'limit' && typeof value.limit === 'number')
    return { by: 'limit', limit: value.limit };
  return undefined;
}

/** A message's other versions: lists of messages, each checked like the conversation's. */
function checkAlternatives(
  value: unknown,
  name: string,
  budget: Budget,
): ConversationMessage[][] | string {
  if (!Array.isArray(value)) return `${name} has "alternatives" that is not a list.`;
  const branches: ConversationMessage[][] = [];
  for (const [b, branch] of value.entries()) {
    const where = `${name}, alternative ${b + 1}`;
    if (!Array.isArray(branch) || branch.length === 0)
      return `${where} is not a non-empty list of messages.`;
    const checked = checkMessages(branch, budget, `${where}, message `);
    if (typeof checked === 'string') return checked;
    branches.push(checked);
  }
  return branches;
}

function checkMessages(
  list: unknown[],
  budget: Budget,
  prefix = 'message ',
): ConversationMessage[] | string {
  const messages: ConversationMessage[] = [];
  for (const [i, raw] of list.entries()) {
    budget.left -= 1;
    if (budget.left < 0)
      return `it has more than ${MAX_MESSAGES.toLocaleString('en-US')} messages.`;
    const m = checkMessage(raw, `${prefix}${i + 1}`, budget);
    if (typeof m === 'string') return m;
    messages.push(m);
  }
  return messages;
}

function checkMessage(value: unknown, name: string, budget: Budget): ConversationMessage | string {
  if (!isObject(value)) return `${name} is not an object.`;
  const m = value;
  if (m.role !== 'user' && m.role !== 'assistant')
    return `${name} has role ${JSON.stringify(m.role)} (expected "user" or "assistant").`;
  if (typeof m.content !== 'string') return `${name} has no text content.`;
  const out: ConversationMessage = { role: m.role, content: m.content };
  const ended = checkEnded(m.ended);
  if (ended) out.ended = ended;
  if (m.alternatives !== undefined) {
    const alternatives = checkAlternatives(m.alternatives, name, budget);
    if (typeof alternatives === 'string') return alternatives;
    if (alternatives.length > 0) {
      out.alternatives = alternatives;
      const version = m.version;
      if (typeof version === 'number' && Number.isInteger(version)) {
        if (version < 0 || version > alternatives.length)
          return `${name} has "version" ${version}; with ${alternatives.length + 1} versions it is 0 to ${alternatives.length}.`;
        out.version = version;
      }
    }
  }
  if (typeof m.thinking === 'string' && m.thinking) out.thinking = m.thinking;
  if (m.interrupted === true) out.interrupted = true;
  const f = m.figures;
  if (isObject(f) && typeof f.numTokens === 'number' && typeof f.seconds === 'number')
    out.figures = {
      numTokens: f.numTokens,
      seconds: f.seconds,
      tps: typeof f.tps === 'number' ? f.tps : undefined,
    };
  return out;
}

/**
 * Checks an imported file. `size` is the file's byte size (refused above 5 MB before parsing).
 * Errors are specific: too large, not JSON / not a conversation (with the reason), or a version
 * this app does not read.
 */
export function parseConversationFile(
  text: string,
  size: number,
  maxTokensCap: number,
): ImportResult {
  if (size > IMPORT_MAX_BYTES)
    return {
      ok: false,
      error: {
        kind: 'too-large',
        message: `The file is too large (${(size / 1024 / 1024).toFixed(2)} MB); a conversation file can be at most 5 MB.`,
      },
    };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return malformed('it is not valid JSON.');
  }
  if (!isRecord(data)) return malformed('expected a JSON object.');
  const file = data;
  if (file.format !== EXPORT_FORMAT) return malformed(`"format" is not "${EXPORT_FORMAT}".`);
  const version = file.version;
  if (
    typeof version !== 'number' ||
    !Number.isInteger(version) ||
    version < OLDEST_VERSION ||
    version > EXPORT_VERSION
  )
    return {
      ok: false,
      error: {
        kind: 'wrong-version',
        message:
          typeof version === 'number' && version > EXPORT_VERSION
            ? `This conversation file has version ${version}, from a newer version of this app; this app reads versions ${OLDEST_VERSION} to ${EXPORT_VERSION}. Update the app to import it.`
            : `This conversation file has version ${JSON.stringify(version)}; this app reads versions ${OLDEST_VERSION} to ${EXPORT_VERSION}.`,
      },
    };
  if (!Array.isArray(file.messages)) return malformed('"messages" is missing or not a list.');
  const messages = checkMessages(file.messages, { left: MAX_MESSAGES });
  if (typeof messages === 'string') return malformed(messages);
  const contextWindow = checkWindowState(file.whenTooLong, file.omitted, messages.length);
  if (typeof contextWindow === 'string') return malformed(contextWindow);
  const title = typeof file.title === 'string' ? file.title.trim().slice(0, 200) : '';
  return {
    ok: true,
    conversation: {
      // Keep the exported name only where it differs from the derived one (a rename).
      customTitle: title && title !== titleOf({ messages }) ? title : undefined,
      modelId: typeof file.modelId === 'string' ? file.modelId : '',
      settings: sanitizeSettings(file.settings, maxTokensCap),
      messages,
      ...contextWindow,
    },
  };
}

const WHEN_TOO_LONG: readonly WhenTooLong[] = ['drop-oldest', 'refuse'];

/** The file's context-window state, checked: each absent field stays absent. */
function checkWindowState(
  whenTooLong: unknown,
  omitted: unknown,
  messageCount: number,
): Pick<Conversation, 'whenTooLong' | 'omitted'> | string {
  const out: Pick<Conversation, 'whenTooLong' | 'omitted'> = {};
  if (whenTooLong !== undefined) {
    const known = WHEN_TOO_LONG.find((value) => value === whenTooLong);
    if (!known)
      return `"whenTooLong" is ${JSON.stringify(whenTooLong)} (expected "drop-oldest" or "refuse").`;
    out.whenTooLong = known;
  }
  if (omitted !== undefined) {
    if (
      typeof omitted !== 'number' ||
      !Number.isInteger(omitted) ||
      omitted < 0 ||
      omitted >= Math.max(messageCount, 1)
    )
      return `"omitted" is ${JSON.stringify(omitted)}; with ${messageCount} messages it is a whole number from 0 to ${Math.max(messageCount - 1, 0)}.`;
    if (omitted > 0) out.omitted = omitted;
  }
  return out;
}
