import { describe, expect, it } from 'vitest';
import {
  continuationPrompt,
  probeChatFormat,
  stopIds,
  withSystemPrompt,
  type TemplateTokenizer,
} from './chat-format';

/** A tokenizer whose "template" is a function; ids: one per character, specials from a list. */
function fake(
  render: (messages: { role: string; content: string }[]) => string,
  specials: Record<string, number> = {},
): TemplateTokenizer {
  return {
    chat_template: 'x',
    all_special_ids: Object.values(specials),
    apply_chat_template: (messages) => render(messages),
    encode: (text) => {
      const ids: number[] = [];
      let rest = text;
      while (rest) {
        const special = Object.keys(specials).find((s) => rest.startsWith(s));
        if (special) {
          ids.push(specials[special] ?? -1);
          rest = rest.slice(special.length);
        } else {
          ids.push(rest.charCodeAt(0));
          rest = rest.slice(1);
        }
      }
      return ids;
    },
  };
}

describe('probeChatFormat', () => {
  it('a template that silently drops the system message does not take one', () => {
    const tokenizer = fake((ms) =>
      ms
        .filter((m) => m.role !== 'system')
        .map((m) => `${m.content}<|im_end|>\n`)
        .join(''),
    );
    expect(probeChatFormat(tokenizer, 'a/b').systemRole).toBe(false);
  });

  it('the end of turn is the first special token right after the reply, only that one', () => {
    const tokenizer = fake(
      (ms) => ms.map((m) => `<|im_start|>${m.role}\n${m.content}<|im_end|><|im_start|>`).join(''),
      { '<|im_start|>': 1, '<|im_end|>': 2 },
    );
    expect(probeChatFormat(tokenizer, 'a/b')).toEqual({ systemRole: true, endOfTurnIds: [2] });
  });

  it('plain text after the reply: no end-of-turn token (the generation config decides)', () => {
    const tokenizer = fake((ms) => ms.map((m) => `### ${m.role}: ${m.content}\n`).join(''));
    expect(probeChatFormat(tokenizer, 'a/b').endOfTurnIds).toEqual([]);
  });
});

describe('withSystemPrompt', () => {
  const messages = [
    { role: 'user', content: 'Hi' },
    { role: 'assistant', content: 'Hello' },
    { role: 'user', content: 'Again' },
  ];
  it('a system message first where the template takes one; nothing added without a prompt', () => {
    expect(withSystemPrompt(messages, 'Be brief.', { systemRole: true })[0]).toEqual({
      role: 'system',
      content: 'Be brief.',
    });
    expect(withSystemPrompt(messages, '', { systemRole: false })).toEqual(messages);
  });
  it('else at the start of the first user message only (the conversation is not changed)', () => {
    const out = withSystemPrompt(messages, 'Be brief.', { systemRole: false });
    expect(out.map((m) => m.content)).toEqual(['Be brief.\n\nHi', 'Hello', 'Again']);
    expect(messages[0]?.content).toBe('Hi');
  });
});

describe('stopIds', () => {
  it("the generation config's ids (one or a list) and the template's, once each", () => {
    expect(stopIds(1, { endOfTurnIds: [107] })).toEqual([1, 107]);
    expect(stopIds([128001, 128009], { endOfTurnIds: [128009] })).toEqual([128001, 128009]);
    expect(stopIds(null, { endOfTurnIds: [] })).toEqual([]);
  });
});

describe('continuationPrompt', () => {
  const chatml = fake((ms) =>
    ms.map((m) => `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`).join(''),
  );
  const messages = [
    { role: 'user', content: 'Tell a story.' },
    { role: 'assistant', content: 'Once upon a' },
  ];

  it('leaves the last reply open: no end of turn after it, no generation prompt', () => {
    expect(continuationPrompt(chatml, messages)).toBe(
      '<|im_start|>user\nTell a story.<|im_end|>\n<|im_start|>assistant\nOnce upon a',
    );
  });

  it('a template that trims the reply: the prompt ends where the trimmed text does', () => {
    const trimming = fake((ms) => ms.map((m) => `[${m.role}] ${m.content.trim()}[end]`).join(''));
    expect(
      continuationPrompt(trimming, [messages[0]!, { role: 'assistant', content: 'Once ' }]),
    ).toBe('[user] Tell a story.[end][assistant] Once');
  });

  // Broke: a reply that starts with a space (most do) could not be continued with Llama 3's
  // template, which trims both ends of every message.
  it('a template that trims both ends: a reply that starts with a space is continued', () => {
    const trimBoth = fake((ms) =>
      ms.map((m) => `[${m.role}]\n\n${m.content.trim()}[end]`).join(''),
    );
    expect(
      continuationPrompt(trimBoth, [messages[0]!, { role: 'assistant', content: ' at these ' }]),
    ).toBe('[user]\n\nTell a story.[end][assistant]\n\nat these');
  });

  it('refuses a conversation that does not end with a reply, or a template that rewrites it', () => {
    expect(() => continuationPrompt(chatml, messages.slice(0, 1))).toThrow(/reply with text/);
    const upper = fake((ms) => ms.map((m) => m.content.toUpperCase()).join('|'));
    expect(() => continuationPrompt(upper, messages)).toThrow(/cannot be continued/);
  });
});
