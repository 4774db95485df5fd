/**
 * What a model's chat template does, found by rendering it (never from a list kept per model): does
 * it take a `system` message, and which token(s) end an assistant turn. Pure over a tokenizer-like
 * object, so it is tested in Node with the real transformers.js tokenizer of the tiny family models.
 */
import { errorMessage } from '../shared/errors';

/** The part of transformers.js's PreTrainedTokenizer used here. */
export interface TemplateTokenizer {
  chat_template?: unknown;
  all_special_ids?: readonly number[];
  apply_chat_template(
    conversation: { role: string; content: string }[],
    options: { tokenize: false; add_generation_prompt?: boolean },
  ): unknown;
  encode(text: string, options: { add_special_tokens: boolean }): number[];
}

/** How to talk to a model, as its template says. */
export interface ChatFormat {
  /** The template renders a `system` message; otherwise it goes before the first user message. */
  systemRole: boolean;
  /** Token ids the template writes right after an assistant message (e.g. <end_of_turn>). */
  endOfTurnIds: number[];
}

const SYSTEM_MARK = 'System probe 7f3a';
const USER_MARK = 'User probe 7f3a';
const REPLY_MARK = 'Reply probe 7f3a';

/** Thrown when the template cannot render a plain conversation (the load fails with it). */
export class ChatTemplateError extends Error {
  override name = 'ChatTemplateError';
}

function render(
  tokenizer: TemplateTokenizer,
  messages: { role: string; content: string }[],
): string {
  const out = tokenizer.apply_chat_template(messages, {
    tokenize: false,
    add_generation_prompt: false,
  });
  return typeof out === 'string' ? out : String(out);
}

/**
 * Renders a tiny conversation to learn the template's format. `modelId` names the model in errors.
 * Throws ChatTemplateError when there is no template, or it fails on a plain user message.
 */
export function probeChatFormat(tokenizer: TemplateTokenizer, modelId: string): ChatFormat {
  if (!tokenizer.chat_template) {
    throw new ChatTemplateError(
      `${modelId} has no chat template (its tokenizer_config.json sets no chat_template), so it cannot be used for chat.`,
    );
  }
  try {
    render(tokenizer, [{ role: 'user', content: USER_MARK }]);
  } catch (error) {
    throw new ChatTemplateError(
      `The chat template of ${modelId} fails on a plain user message: ${errorMessage(error)}`,
    );
  }
  let systemRole: boolean;
  try {
    const text = render(tokenizer, [
      { role: 'system', content: SYSTEM_MARK },
      { role: 'user', content: USER_MARK },
    ]);
    // A template that silently drops the system message does not take one either.
    systemRole = text.includes(SYSTEM_MARK);
  } catch {
    // Its own error ("System role not supported"): the instruction goes in the first user turn.
    systemRole = false;
  }
  return { systemRole, endOfTurnIds: endOfTurnIds(tokenizer) };
}

/**
 * The special token(s) written right after an assistant message's content: <|eot_id|>,
 * <end_of_turn>, <|end|>, <|im_end|>, <｜end▁of▁sentence｜>... Empty when the template writes
 * plain text there (then only the generation config's ids end a reply).
 */
export function endOfTurnIds(tokenizer: TemplateTokenizer): number[] {
  let text: string;
  try {
    text = render(tokenizer, [
      { role: 'user', content: USER_MARK },
      { role: 'assistant', content: REPLY_MARK },
    ]);
  } catch {
    return [];
  }
  const at = text.lastIndexOf(REPLY_MARK);
  if (at < 0) return [];
  const after = tokenizer.encode(text.slice(at + REPLY_MARK.length), {
    add_special_tokens: false,
  });
  const special = new Set(tokenizer.all_special_ids ?? []);
  const ids: number[] = [];
  for (const id of after) {
    if (!special.has(id)) break;
    ids.push(id);
  }
  // Only the first: a template may write <end_of_turn> and then the next turn's opener.
  return ids.slice(0, 1);
}

/**
 * The conversation to render: the system prompt as a `system` message where the template takes
 * one, else at the start of the first user message (as Gemma's authors advise).
 */
export function withSystemPrompt<M extends { role: string; content: string }>(
  messages: readonly M[],
  systemPrompt: string | undefined,
  format: Pick<ChatFormat, 'systemRole'>,
): { role: string; content: string }[] {
  const list = messages.map((m) => ({ role: m.role, content: m.content }));
  if (!systemPrompt) return list;
  if (format.systemRole) return [{ role: 'system', content: systemPrompt }, ...list];
  const first = list.findIndex((m) => m.role === 'user');
  if (first < 0) return [{ role: 'user', content: systemPrompt }, ...list];
  const target = list[first];
  if (target) list[first] = { ...target, content: `${systemPrompt}\n\n${target.content}` };
  return list;
}

/** The ids that end a reply: the generation config's plus the template's end of turn, once each. */
export function stopIds(
  generationEos: unknown,
  format: Pick<ChatFormat, 'endOfTurnIds'>,
): number[] {
  const base = Array.isArray(generationEos)
    ? generationEos
    : generationEos === null || generationEos === undefined
      ? []
      : [generationEos];
  const ids = base.filter((x): x is number => typeof x === 'number' && Number.isInteger(x));
  return [...new Set([...ids, ...format.endOfTurnIds])];
}

/**
 * The prompt for Continue (GenerateOptions.continue): the conversation rendered with its last,
 * assistant message left open — nothing after its text, no generation prompt — so the model
 * writes on into that message. Throws ChatTemplateError when the template does not write the
 * message's text (a template may trim it: then the text ends where the trimmed one does).
 */
export function continuationPrompt(
  tokenizer: TemplateTokenizer,
  conversation: { role: string; content: string }[],
): string {
  const last = conversation.at(-1);
  if (last?.role !== 'assistant' || !last.content.trim())
    throw new ChatTemplateError('Continue needs a reply with text to continue.');
  const text = render(tokenizer, conversation);
  // Llama 3's template trims both ends (`| trim`): a reply that starts with a space is written
  // without it.
  for (const body of [last.content, last.content.trimEnd(), last.content.trim()]) {
    const at = text.lastIndexOf(body);
    if (at >= 0) return text.slice(0, at + body.length);
  }
  throw new ChatTemplateError(
    "This model's chat template does not write the reply's text as it is, so it cannot be continued.",
  );
}
