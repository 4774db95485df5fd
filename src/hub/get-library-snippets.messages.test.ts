import { afterEach, describe, expect, it, vi } from 'vitest';
import { MODEL_LIBRARIES_UI_ELEMENTS } from '@huggingface/tasks';
import { getLibrarySnippets } from './get-library-snippets';
import { parseModelRecord } from './parse-model-record';
import { SNIPPET_MESSAGES } from './messages';
import type { SnippetItem } from './types';

const ID = 'acme/model';

/** Records go through the parser, as they do in the app. */
function snippetsOf(fields: Record<string, unknown>, library?: string) {
  const { record } = parseModelRecord({ json: { id: ID, ...fields } });
  return getLibrarySnippets({ record, ...(library ? { library } : {}) });
}

function codes(items: SnippetItem[]): string[] {
  return items.flatMap((item) => (item.kind === 'code' ? [item.code] : []));
}

afterEach(() => vi.restoreAllMocks());

describe("getLibrarySnippets: PRODUCT.md's messages in place of a snippet (exact text)", () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    [SNIPPET_MESSAGES.typeUnknown, { library_name: 'transformers', pipeline_tag: 'fill-mask' }],
    [SNIPPET_MESSAGES.typeUnknownDot, { library_name: 'audiocraft', tags: [] }],
    [SNIPPET_MESSAGES.sklearnFilename, { library_name: 'sklearn', tags: ['skops'] }],
    [
      SNIPPET_MESSAGES.peftTask,
      {
        library_name: 'peft',
        config: { peft: { task_type: 'NOT_A_TASK', base_model_name_or_path: 'a/b' } },
      },
    ],
    [
      SNIPPET_MESSAGES.peftBase,
      { library_name: 'peft', config: { peft: { task_type: 'SEQ_CLS' } } },
    ],
    [SNIPPET_MESSAGES.speechbrainMissing, { library_name: 'speechbrain' }],
    [
      SNIPPET_MESSAGES.speechbrainInvalid,
      {
        library_name: 'speechbrain',
        config: { speechbrain: { speechbrain_interface: 'NoSuchInterface' } },
      },
    ],
    [SNIPPET_MESSAGES.unknownPipelineTag, { library_name: 'transformers.js' }],
    [SNIPPET_MESSAGES.nemoDomain, { library_name: 'nemo', tags: ['text-to-speech'] }],
    [SNIPPET_MESSAGES.espnetUnknown, { library_name: 'espnet', tags: [] }],
  ];

  it.each(cases)('"%s"', (text, fields) => {
    expect(snippetsOf(fields).items).toEqual([{ kind: 'message', text }]);
  });

  it('a wrong-typed field is dropped, so the generator reports it missing (peft task_type 42)', () => {
    expect(snippetsOf({ library_name: 'peft', config: { peft: { task_type: 42 } } }).items).toEqual(
      [{ kind: 'message', text: SNIPPET_MESSAGES.peftTask }],
    );
  });

  it("paddlenlp with no architecture: the note 'Type of model unknown' above a generic loader", () => {
    const [item] = snippetsOf({ library_name: 'paddlenlp' }).items;
    expect(item).toMatchObject({ kind: 'code', note: SNIPPET_MESSAGES.typeUnknown });
    expect(item?.kind === 'code' ? item.code : '').toMatch(
      /^from paddlenlp.transformers import AutoTokenizer, AutoModel/,
    );
  });
});

describe('getLibrarySnippets: which library', () => {
  it('takes library_name first, else the first tag naming a library', () => {
    expect(snippetsOf({ library_name: 'peft', tags: ['diffusers'] }).library?.key).toBe('peft');
    const byTag = snippetsOf({ tags: ['en', 'diffusers'] });
    expect(byTag.library).toMatchObject({ key: 'diffusers', prettyLabel: 'Diffusers' });
    expect(codes(byTag.items)).not.toHaveLength(0);
  });

  it('no library: a message, no library', () => {
    const result = snippetsOf({ tags: ['en'] });
    expect(result.library).toBeUndefined();
    expect(result.items).toEqual([
      {
        kind: 'message',
        text: 'The record names no library (no library_name, and no tag names one), so there is no library snippet.',
      },
    ]);
  });

  it('a library without snippets, and an unknown library, say so', () => {
    expect(snippetsOf({ library_name: 'acestep' }).items[0]).toEqual({
      kind: 'message',
      text: 'ACE-Step has no usage snippet; see https://github.com/ace-step/ACE-Step.',
    });
    expect(snippetsOf({ library_name: 'no-such-lib' }).items[0]).toEqual({
      kind: 'message',
      text: '"no-such-lib" is not a library the Hub knows.',
    });
  });

  it('a generator that throws becomes a message, not an exception', () => {
    vi.spyOn(MODEL_LIBRARIES_UI_ELEMENTS.diffusers, 'snippets').mockImplementation(() => {
      throw new Error('Template not found');
    });
    expect(snippetsOf({ library_name: 'diffusers' }).items).toEqual([
      { kind: 'message', text: 'Could not generate the snippet: Template not found' },
    ]);
  });
});
