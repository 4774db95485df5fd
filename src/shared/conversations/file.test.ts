import { describe, expect, it } from 'vitest';
import { defaultSettings } from '../generation-settings';
import type { Conversation } from './types';
import {
  IMPORT_MAX_BYTES,
  exportFileName,
  parseConversationFile,
  toJson,
  toMarkdown,
} from './file';
import { reviveMessages, titleOf } from './types';

const conversation: Conversation = {
  id: 'c1',
  createdAt: 1,
  updatedAt: 2,
  modelId: 'local/tiny-random-llama',
  settings: { ...defaultSettings(), temperature: 0.7, systemPrompt: 'Be brief.' },
  messages: [
    { role: 'user', content: '  Hello   there\nfriend ' },
    { role: 'assistant', content: 'Hi!', figures: { numTokens: 3, seconds: 0.5, tps: 6 } },
    { role: 'user', content: 'More?' },
    { role: 'assistant', content: 'Part', streaming: true },
  ],
};

const parse = (text: string, size = text.length) => parseConversationFile(text, size, 1024);

describe('conversation files', () => {
  it('titles an entry by its first user message, trimmed', () => {
    expect(titleOf(conversation)).toBe('Hello there friend');
    expect(titleOf({ messages: [] })).toBe('New chat');
    expect(titleOf({ ...conversation, customTitle: ' Mine ' })).toBe('Mine');
  });

  it('a reply saved mid-stream is read back as interrupted', () => {
    expect(reviveMessages(conversation.messages).at(-1)).toEqual({
      role: 'assistant',
      content: 'Part',
      interrupted: true,
    });
  });

  it('JSON export round-trips through import', () => {
    const result = parse(toJson(conversation));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.conversation.modelId).toBe(conversation.modelId);
    expect(result.conversation.settings).toEqual(conversation.settings);
    expect(result.conversation.customTitle).toBeUndefined();
    expect(result.conversation.messages.map((m) => [m.role, m.content])).toEqual(
      conversation.messages.map((m) => [m.role, m.content]),
    );
    expect(result.conversation.messages[1]?.figures).toEqual({
      numTokens: 3,
      seconds: 0.5,
      tps: 6,
    });
    expect(result.conversation.messages[3]?.interrupted).toBe(true);
  });

  it('keeps a renamed title on import', () => {
    const result = parse(toJson({ ...conversation, customTitle: 'Greetings' }));
    expect(result.ok && result.conversation.customTitle).toBe('Greetings');
  });

  it('Markdown export has the title, the model, the settings and each message', () => {
    const md = toMarkdown(conversation);
    expect(md).toContain('# Hello there friend');
    expect(md).toContain('- Model: local/tiny-random-llama');
    expect(md).toContain('Temperature 0.7');
    expect(md).toContain('- System prompt: Be brief.');
    expect(md).toContain('## User\n\n  Hello   there\nfriend ');
    expect(md).toContain('## Assistant\n\nHi!');
    expect(md).toContain('*(interrupted)*');
    expect(exportFileName(conversation, 'md')).toBe('hello-there-friend.md');
  });

  it('refuses an oversized file before parsing', () => {
    const result = parse('{}', IMPORT_MAX_BYTES + 1);
    expect(result).toMatchObject({ ok: false, error: { kind: 'too-large' } });
    expect(!result.ok && result.error.message).toMatch(/at most 5 MB/);
  });

  it.each([
    ['not JSON', '{oops', /not valid JSON/],
    ['an array', '[]', /expected a JSON object/],
    ['another format', '{"format":"x","version":1,"messages":[]}', /"format" is not/],
    [
      'no messages',
      '{"format":"local-llm-studio.conversation","version":1}',
      /"messages" is missing/,
    ],
    [
      'a bad role',
      '{"format":"local-llm-studio.conversation","version":1,"messages":[{"role":"system","content":"x"}]}',
      /message 1 has role "system"/,
    ],
    [
      'missing content',
      '{"format":"local-llm-studio.conversation","version":1,"messages":[{"role":"user"}]}',
      /message 1 has no text content/,
    ],
  ])('refuses %s as malformed', (_name, text, message) => {
    const result = parse(text);
    expect(result).toMatchObject({ ok: false, error: { kind: 'malformed' } });
    expect(!result.ok && result.error.message).toMatch(message);
  });

  it('refuses a file from a newer version of the app, naming its version', () => {
    const result = parse(
      '{"format":"local-llm-studio.conversation","version":3,"messages":[{"role":"user","content":"q","alternatives":[[{"role":"user","content":"p"}]]}]}',
    );
    expect(result).toEqual({
      ok: false,
      error: {
        kind: 'wrong-version',
        message:
          'This conversation file has version 3, from a newer version of this app; this app reads versions 1 to 2. Update the app to import it.',
      },
    });
    expect(
      parse('{"format":"local-llm-studio.conversation","version":"1","messages":[]}'),
    ).toMatchObject({
      ok: false,
      error: { message: 'This conversation file has version "1"; this app reads versions 1 to 2.' },
    });
  });

  it('an export from before message versions (version 1) still imports', () => {
    const v1 = JSON.stringify({
      format: 'local-llm-studio.conversation',
      version: 1,
      title: 'Old',
      modelId: 'm',
      settings: defaultSettings(),
      exportedAt: '2026-01-01T00:00:00.000Z',
      messages: [
        { role: 'user', content: 'Old' },
        { role: 'assistant', content: 'Reply', figures: { numTokens: 2, seconds: 1 } },
      ],
    });
    const result = parse(v1);
    expect(result.ok && result.conversation.messages).toEqual([
      { role: 'user', content: 'Old' },
      {
        role: 'assistant',
        content: 'Reply',
        figures: { numTokens: 2, seconds: 1, tps: undefined },
      },
    ]);
  });

  const branched: Conversation = {
    ...conversation,
    messages: [
      {
        role: 'user',
        content: 'Edited',
        version: 1,
        alternatives: [
          [
            { role: 'user', content: 'First' },
            {
              role: 'assistant',
              content: 'Second answer',
              version: 1,
              alternatives: [[{ role: 'assistant', content: 'First answer' }]],
            },
          ],
        ],
      },
      { role: 'assistant', content: 'Cut', ended: { by: 'limit', limit: 4 } },
    ],
  };

  it('JSON export carries other versions, branches and the limit mark through import', () => {
    const result = parse(toJson(branched));
    expect(result.ok && result.conversation.messages).toEqual(branched.messages);
  });

  it.each([
    [
      'alternatives that are not a list',
      { alternatives: 'x' },
      /message 1 has "alternatives" that is not a list/,
    ],
    [
      'an empty alternative',
      { alternatives: [[]] },
      /message 1, alternative 1 is not a non-empty list/,
    ],
    [
      'a bad message inside an alternative',
      { alternatives: [[{ role: 'tool', content: 'x' }]] },
      /message 1, alternative 1, message 1 has role "tool"/,
    ],
    [
      'a version out of range',
      { alternatives: [[{ role: 'user', content: 'p' }]], version: 2 },
      /"version" 2; with 2 versions it is 0 to 1/,
    ],
  ])('refuses %s, naming where', (_name, extra, message) => {
    const text = JSON.stringify({
      format: 'local-llm-studio.conversation',
      version: 2,
      messages: [{ role: 'user', content: 'q', ...extra }],
    });
    const result = parse(text);
    expect(result).toMatchObject({ ok: false, error: { kind: 'malformed' } });
    expect(!result.ok && result.error.message).toMatch(message);
  });
  it('JSON export carries the context-window state through import, and Markdown marks the cut', () => {
    const windowed = { ...conversation, whenTooLong: 'refuse' as const, omitted: 2 };
    const result = parse(toJson(windowed));
    expect(result).toMatchObject({ ok: true, conversation: { whenTooLong: 'refuse', omitted: 2 } });
    const plain = parse(toJson(conversation));
    expect(plain.ok && 'whenTooLong' in plain.conversation).toBe(false);
    expect(plain.ok && 'omitted' in plain.conversation).toBe(false);
    const md = toMarkdown(windowed).split('\n');
    const note = md.indexOf('*(Earlier messages are no longer seen by the model.)*');
    expect(note).toBeGreaterThan(0);
    // Before the third message: two headings above it, the rest below.
    expect(md.slice(0, note).filter((line) => line.startsWith('## '))).toHaveLength(2);
    expect(toMarkdown(conversation)).not.toMatch(/no longer seen/);
  });

  it.each([
    [
      'an unknown whenTooLong',
      { whenTooLong: 'truncate' },
      /"whenTooLong" is "truncate" \(expected "drop-oldest" or "refuse"\)/,
    ],
    [
      'omitted past the messages',
      { omitted: 1 },
      /"omitted" is 1; with 1 messages it is a whole number from 0 to 0/,
    ],
    ['a negative omitted', { omitted: -1 }, /"omitted" is -1/],
    ['a fractional omitted', { omitted: 0.5 }, /"omitted" is 0.5/],
  ])('refuses %s, naming the field', (_name, extra, message) => {
    const text = JSON.stringify({
      format: 'local-llm-studio.conversation',
      version: 2,
      messages: [{ role: 'user', content: 'q' }],
      ...extra,
    });
    const result = parse(text);
    expect(result).toMatchObject({ ok: false, error: { kind: 'malformed' } });
    expect(!result.ok && result.error.message).toMatch(message);
  });
});
