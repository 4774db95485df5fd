/** One decoded server-sent event of a chat-completion stream. */
export interface ChatStreamEvent {
  /** Text added to the answer. */
  content: string;
  /** Reasoning text (gpt-oss streams its thinking apart from the answer). */
  reasoning: string;
  /** Set on the last chunk: 'stop', 'length', ... */
  finishReason: string | null;
  /** An error object sent inside the stream. */
  error: string | null;
  /** The `[DONE]` sentinel. */
  done: boolean;
}

interface StreamChunk {
  choices?: Array<{
    delta?: {
      content?: string | null;
      reasoning?: string | null;
      reasoning_content?: string | null;
    };
    message?: { content?: string | null };
    finish_reason?: string | null;
  }>;
  error?: string | { message?: string };
}

/** Decodes one `data:` payload of an OpenAI-compatible chat-completion stream. */
export function decodeStreamData(data: string): ChatStreamEvent {
  const empty = { content: '', reasoning: '', finishReason: null, error: null, done: false };
  if (data.trim() === '[DONE]') return { ...empty, done: true };
  let chunk: StreamChunk;
  try {
    chunk = JSON.parse(data) as StreamChunk;
  } catch {
    return { ...empty, error: 'the stream sent a line that is not JSON' };
  }
  if (chunk.error) {
    const error = typeof chunk.error === 'string' ? chunk.error : (chunk.error.message ?? 'error');
    return { ...empty, error };
  }
  const choice = chunk.choices?.[0];
  return {
    ...empty,
    content: choice?.delta?.content ?? choice?.message?.content ?? '',
    reasoning: choice?.delta?.reasoning ?? choice?.delta?.reasoning_content ?? '',
    finishReason: choice?.finish_reason ?? null,
  };
}

/**
 * Splits a growing SSE text buffer into complete events' `data` payloads (multi-line data joined
 * by newlines) and the unfinished rest. Comments (`: keep-alive`) and other fields are skipped.
 */
export function splitSseBuffer(buffer: string): { events: string[]; rest: string } {
  const normalised = buffer.replace(/\r\n?/g, '\n');
  const blocks = normalised.split('\n\n');
  const rest = blocks.pop() ?? '';
  const events: string[] = [];
  for (const block of blocks) {
    const data = block
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''));
    if (data.length > 0) events.push(data.join('\n'));
  }
  return { events, rest };
}
