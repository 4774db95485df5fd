import { describe, expect, it } from 'vitest';
import { DATASET_LIMIT_BYTES, asPromptCompletion } from './training-api';
import { parseDatasetFile, storedName } from './dataset-file';

const entries = [
  { prompt: 'Where is the harbour?', completion: 'By the old mill.' },
  { prompt: 'When does the ferry leave?', completion: 'At nine.' },
];
const parse = (name: string, text: string) => parseDatasetFile(name, text.length, text);

describe('parseDatasetFile', () => {
  it('a JSON array of {prompt, completion}', () => {
    expect(parse('harbour.json', JSON.stringify(entries))).toEqual({
      ok: true,
      entries,
      name: 'harbour',
    });
  });

  it('JSONL, blank lines skipped, extra keys dropped', () => {
    const text = `${JSON.stringify({ ...entries[0], source: 'x' })}\n\n${JSON.stringify(entries[1])}\n`;
    expect(parse('harbour.jsonl', text)).toEqual({ ok: true, entries, name: 'harbour' });
  });

  it('a malformed JSONL line: the file and the line number', () => {
    const text = `${JSON.stringify(entries[0])}\n{"prompt": "x", \n${JSON.stringify(entries[1])}`;
    const result = parse('harbour.jsonl', text);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatch(/^harbour\.jsonl, line 2 is not valid JSON \(/);
  });

  it('a JSONL line without a completion: the file, the line and the field', () => {
    const text = `${JSON.stringify(entries[0])}\n${JSON.stringify({ prompt: 'q' })}`;
    expect(parse('data.jsonl', text)).toEqual({
      ok: false,
      error:
        'data.jsonl, line 2 is not a {prompt, completion} or {messages} entry: completion is required.',
    });
  });

  it('a JSON array with a bad entry: the file and the entry, counted from 1', () => {
    const text = JSON.stringify([entries[0], entries[1], { prompt: 'q', completion: 3 }]);
    expect(parse('data.json', text)).toEqual({
      ok: false,
      error: 'data.json is not a dataset: entry 3: completion must be a string.',
    });
  });

  it('empty, an empty array, not JSON at all, too big: each names the file', () => {
    expect(parse('empty.json', '  \n')).toEqual({
      ok: false,
      error:
        'empty.json is empty: a dataset needs at least one {prompt, completion} or {messages} entry.',
    });
    expect(parse('none.json', '[]')).toEqual({
      ok: false,
      error: 'none.json is not a dataset: the file must hold at least one entry.',
    });
    const notJson = parse('notes.txt', 'Where is the harbour? By the old mill.');
    expect(!notJson.ok && notJson.error).toMatch(/^notes\.txt is not JSON or JSONL \(/);
    expect(parseDatasetFile('big.json', DATASET_LIMIT_BYTES * 1.25, '[]')).toEqual({
      ok: false,
      error: 'big.json is too big (25.00MB): the training service takes datasets up to 20.00MB.',
    });
    expect(parseDatasetFile('edge.json', DATASET_LIMIT_BYTES, JSON.stringify(entries)).ok).toBe(
      true,
    );
  });
});

describe('chat-format entries ({messages})', () => {
  const chat = {
    messages: [
      { role: 'system', content: 'You answer about the harbour.' },
      { role: 'user', content: 'Where is the harbour?' },
      { role: 'assistant', content: 'By the old mill.' },
      { role: 'user', content: 'And the ferry?' },
      { role: 'assistant', content: 'At nine.' },
    ],
  };

  it('JSONL of multi-turn conversations beside {prompt, completion} lines, unknown keys dropped', () => {
    const text = `${JSON.stringify({ ...chat, id: 7 })}\n${JSON.stringify(entries[0])}\n`;
    expect(parse('chat.jsonl', text)).toEqual({
      ok: true,
      entries: [chat, entries[0]],
      name: 'chat',
    });
  });

  it('a JSON array of them', () => {
    expect(parse('chat.json', JSON.stringify([chat, chat]))).toEqual({
      ok: true,
      entries: [chat, chat],
      name: 'chat',
    });
  });

  it('no assistant turn, a bad role, a turn without content: the line or entry and what is wrong', () => {
    const noAnswer = { messages: [{ role: 'user', content: 'Hello?' }] };
    expect(parse('chat.jsonl', `${JSON.stringify(chat)}\n${JSON.stringify(noAnswer)}`)).toEqual({
      ok: false,
      error:
        'chat.jsonl, line 2 is not a {prompt, completion} or {messages} entry: messages has no assistant turn (nothing to learn).',
    });
    const badRole = { messages: [{ role: 'bot', content: 'Hi' }, chat.messages[2]] };
    expect(parse('chat.json', JSON.stringify([chat, badRole]))).toEqual({
      ok: false,
      error:
        'chat.json is not a dataset: entry 2: messages.0.role must be "system", "user" or "assistant".',
    });
    const noContent = { messages: [{ role: 'user' }, chat.messages[2]] };
    expect(parse('chat.json', JSON.stringify([noContent]))).toEqual({
      ok: false,
      error: 'chat.json is not a dataset: entry 1: messages.0.content is required.',
    });
    expect(parse('chat.json', JSON.stringify([{ messages: [] }]))).toEqual({
      ok: false,
      error: 'chat.json is not a dataset: entry 1: messages must hold at least one turn.',
    });
  });
});

describe('asPromptCompletion', () => {
  it('a conversation as Compare asks it: the last assistant turn and the user turn before it', () => {
    expect(
      asPromptCompletion({
        messages: [
          { role: 'user', content: 'Where is the harbour?' },
          { role: 'assistant', content: 'By the old mill.' },
          { role: 'user', content: 'And the ferry?' },
          { role: 'assistant', content: 'At nine.' },
          { role: 'user', content: 'Unanswered.' },
        ],
      }),
    ).toEqual({ prompt: 'And the ferry?', completion: 'At nine.' });
    expect(asPromptCompletion(entries[0]!)).toEqual(entries[0]);
  });
});

describe('storedName', () => {
  it('the stem in the characters PUT /datasets/{name} allows', () => {
    expect(storedName('harbour.jsonl')).toBe('harbour');
    expect(storedName('My data (v2).json')).toBe('My-data-v2-');
    expect(storedName('..secret..json')).toBe('secret.');
    expect(storedName('!!!.json')).toBe('dataset');
  });
});
