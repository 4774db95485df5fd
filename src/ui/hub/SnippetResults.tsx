import { useId, useMemo, useState } from 'react';
import type { InferenceProviderOrPolicy } from '@huggingface/inference';
import { getLibrarySnippets } from '../../hub/get-library-snippets';
import { INFERENCE_PROVIDER_CHOICES, getInferenceSnippets } from '../../hub/get-inference-snippets';
import { isBrowserChatModel } from '../../hub/is-browser-chat-model';
import { ggufQuantType } from '../../hub/gguf-quant-type';
import type { InferenceSnippetItem, ParsedModelRecord } from '../../hub/types';
import { CodeBlock } from './CodeBlock';
import { Tabs } from './Tabs';

const LANGUAGES = [
  { id: 'js', label: 'JavaScript' },
  { id: 'python', label: 'Python' },
  { id: 'sh', label: 'Shell' },
] as const;

function InferenceSection({ parsed }: { parsed: ParsedModelRecord }) {
  const providerId = useId();
  const [provider, setProvider] = useState<InferenceProviderOrPolicy>('hf-inference');
  const [streaming, setStreaming] = useState(false);
  const result = useMemo(
    () => getInferenceSnippets({ record: parsed.record, provider, streaming }),
    [parsed, provider, streaming],
  );
  const byLanguage = (language: string): InferenceSnippetItem[] =>
    result.snippets.filter((s) => s.language === language);
  return (
    <section aria-labelledby="hub-inference-title">
      <h3 id="hub-inference-title">Inference snippets</h3>
      <div className="hub-toolbar">
        <label htmlFor={providerId}>Provider</label>
        <select
          id={providerId}
          value={provider}
          onChange={(e) => {
            const chosen = INFERENCE_PROVIDER_CHOICES.find((p) => p === e.target.value);
            if (chosen) setProvider(chosen);
          }}
        >
          {INFERENCE_PROVIDER_CHOICES.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
        {result.conversational && (
          <label>
            <input
              type="checkbox"
              checked={streaming}
              onChange={(e) => setStreaming(e.target.checked)}
            />{' '}
            Stream the response
          </label>
        )}
      </div>
      {result.message !== undefined ? (
        <p className="hub-snippet-message">{result.message}</p>
      ) : (
        <Tabs
          label="Inference snippet language"
          className="hub-language-tabs"
          tabs={LANGUAGES.filter((l) => byLanguage(l.id).length > 0).map((l) => ({
            id: l.id,
            label: l.label,
            content: byLanguage(l.id).map((s) => (
              <CodeBlock key={s.client} code={s.content} label={`${l.label} (${s.client})`} />
            )),
          }))}
        />
      )}
    </section>
  );
}

/** Everything the view says about one model record: issues, library and inference snippets. */
export function SnippetResults({
  parsed,
  onLoadInChat,
}: {
  parsed: ParsedModelRecord;
  onLoadInChat?: (modelId: string) => void;
}) {
  const { record, issues } = parsed;
  const library = useMemo(() => getLibrarySnippets({ record }), [record]);
  const chat = isBrowserChatModel({ record });
  const ggufFiles = (record.siblings ?? []).filter((f) => f.rfilename.endsWith('.gguf'));
  const libLabel = library.library?.prettyLabel ?? 'no library';
  return (
    <article className="hub-results" aria-labelledby="hub-results-title">
      <h2 id="hub-results-title">{record.id}</h2>
      <p className="hub-muted">
        Task: {record.pipeline_tag ?? 'not given'} · Library: {libLabel}
      </p>
      {chat.ok && onLoadInChat && (
        <button type="button" className="hub-primary" onClick={() => onLoadInChat(record.id)}>
          Load in chat
        </button>
      )}
      {issues.length > 0 && (
        <div className="hub-issues" role="status">
          <p>Some fields of this record were unusable and are ignored:</p>
          <ul>
            {issues.slice(0, 20).map((issue, i) => (
              <li key={i}>{issue.message}</li>
            ))}
          </ul>
          {issues.length > 20 && <p>…and {issues.length - 20} more.</p>}
        </div>
      )}
      <section aria-labelledby="hub-library-title">
        <h3 id="hub-library-title">
          Library snippets
          {library.library && `: ${library.library.prettyLabel}`}
        </h3>
        {library.items.map((item, i) =>
          item.kind === 'message' ? (
            <p key={i} className="hub-snippet-message">
              {item.text}
            </p>
          ) : (
            <div key={i}>
              {item.note && <p className="hub-snippet-message">{item.note}</p>}
              <CodeBlock code={item.code} label={`${libLabel} snippet ${i + 1}`} />
            </div>
          ),
        )}
      </section>
      <InferenceSection parsed={parsed} />
      {ggufFiles.length > 0 && (
        <section aria-labelledby="hub-gguf-files-title">
          <h3 id="hub-gguf-files-title">GGUF files</h3>
          <ul>
            {ggufFiles.map((f) => {
              const quant = ggufQuantType({ fileName: f.rfilename });
              return (
                <li key={f.rfilename}>
                  <code>{f.rfilename}</code> —{' '}
                  {quant ? quant.label : 'quantization not in the name'}
                </li>
              );
            })}
          </ul>
        </section>
      )}
    </article>
  );
}
