import { describe, expect, it, vi } from 'vitest';
import { getInferenceSnippets } from './get-inference-snippets';
import { parseModelRecord } from './parse-model-record';
import { SNIPPET_MESSAGES } from './messages';

function recordOf(fields: Record<string, unknown>) {
  return parseModelRecord({ json: { id: 'acme/model', ...fields } }).record;
}

const chat = recordOf({ pipeline_tag: 'text-generation', tags: ['conversational'] });

describe('getInferenceSnippets', () => {
  it('conversational: chat completion in python, js and sh, one user message', () => {
    const result = getInferenceSnippets({ record: chat });
    expect(result.conversational).toBe(true);
    expect(result.message).toBeUndefined();
    expect(new Set(result.snippets.map((s) => s.language))).toEqual(
      new Set(['python', 'js', 'sh']),
    );
    const curl = result.snippets.find((s) => s.language === 'sh');
    expect(curl?.content).toContain('https://router.huggingface.co/v1/chat/completions');
    expect(curl?.content).toContain('"Authorization: Bearer $HF_TOKEN"');
    expect(curl?.content).toContain('"role": "user"');
    expect(curl?.content).toContain('"stream": false');
  });

  it('streaming on: stream true', () => {
    const curl = getInferenceSnippets({ record: chat, streaming: true }).snippets.find(
      (s) => s.language === 'sh',
    );
    expect(curl?.content).toContain('"stream": true');
  });

  it('the provider shows in the routed model id', () => {
    const py = getInferenceSnippets({ record: chat, provider: 'together' }).snippets.find(
      (s) => s.client === 'openai' && s.language === 'python',
    );
    expect(py?.content).toContain('model="acme/model:together"');
  });

  it('image-text-to-text: text plus image message', () => {
    const result = getInferenceSnippets({
      record: recordOf({ pipeline_tag: 'image-text-to-text' }),
    });
    expect(result.conversational).toBe(true);
    expect(result.snippets[0]?.content).toContain('image_url');
  });

  it('non-conversational: POST to the full URL with the inputs; zero-shot carries candidate_labels', () => {
    const result = getInferenceSnippets({
      record: recordOf({ pipeline_tag: 'zero-shot-classification' }),
    });
    expect(result.conversational).toBe(false);
    const curl = result.snippets.find((s) => s.language === 'sh');
    expect(curl?.content).toContain('https://router.huggingface.co/hf-inference/models/acme/model');
    expect(curl?.content).toContain('candidate_labels');
    expect(result.snippets.find((s) => s.client === 'fetch')?.content).toContain('method: "POST"');
  });

  it(`no pipeline tag, or a task without an example input: '${SNIPPET_MESSAGES.noInputExample}'`, () => {
    for (const record of [recordOf({}), recordOf({ pipeline_tag: 'graph-ml' })]) {
      expect(getInferenceSnippets({ record })).toEqual({
        conversational: false,
        snippets: [],
        message: SNIPPET_MESSAGES.noInputExample,
      });
    }
  });

  it("a provider that does not serve the task: the library's reason, no console noise", () => {
    const error = vi.spyOn(console, 'error');
    const result = getInferenceSnippets({
      record: recordOf({ pipeline_tag: 'text-classification' }),
      provider: 'together',
    });
    expect(result.snippets).toEqual([]);
    expect(result.message).toMatch(
      /^Task 'text-classification' not supported for provider 'together'/,
    );
    expect(error).not.toHaveBeenCalled();
    error.mockRestore();
  });
});
