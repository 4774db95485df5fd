import { useId, useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { MODELS } from '../../shared/models';
import { modelRecordQueryOptions } from '../../hub/model-record-query-options';
import { parseModelRecord } from '../../hub/parse-model-record';
import { sampleModelRecord } from '../../hub/sample-model-record';
import { isHubError } from '../../hub/hub-error';
import type { ParsedModelRecord } from '../../hub/types';
import { SnippetResults } from './SnippetResults';

type Source = { kind: 'hub'; modelId: string } | { kind: 'local'; parsed: ParsedModelRecord };

function messageOf(error: unknown): string {
  return isHubError(error) || error instanceof Error ? error.message : String(error);
}

/** Model id → Hub record, or a pasted record (offline); then its snippets. */
export function ModelSnippets({ onLoadInChat }: { onLoadInChat?: (modelId: string) => void }) {
  const idField = useId();
  const pasteField = useId();
  const [modelId, setModelId] = useState('');
  const [paste, setPaste] = useState('');
  const [pasteError, setPasteError] = useState<string | null>(null);
  const [source, setSource] = useState<Source | null>(null);
  const query = useQuery(
    modelRecordQueryOptions({ modelId: source?.kind === 'hub' ? source.modelId : '' }),
  );

  const fetchRecord = (event: FormEvent) => {
    event.preventDefault();
    const id = modelId.trim();
    setPasteError(null); // a new attempt: an older error no longer applies
    if (source?.kind === 'hub' && source.modelId === id) void query.refetch();
    else setSource({ kind: 'hub', modelId: id });
  };

  const usePaste = (event: FormEvent) => {
    event.preventDefault();
    try {
      const parsed = parseModelRecord({ json: paste });
      setSource({ kind: 'local', parsed });
      // The id field names the record the snippets are for (not the last one fetched).
      setModelId(parsed.record.id);
      setPasteError(null);
    } catch (error) {
      setPasteError(messageOf(error));
      // A new attempt: an older fetch error ("Could not reach the Hub") no longer applies.
      if (source?.kind === 'hub' && query.isError) setSource(null);
    }
  };

  let result = null;
  if (source?.kind === 'local') {
    result = <SnippetResults parsed={source.parsed} onLoadInChat={onLoadInChat} />;
  } else if (source?.kind === 'hub') {
    if (query.isFetching) {
      // A new attempt replaces the old error while it runs.
      result = <p className="hub-muted">Fetching the record of {source.modelId}…</p>;
    } else if (query.isError) {
      result = (
        <p role="alert" className="hub-error">
          {messageOf(query.error)}
        </p>
      );
    } else if (query.data) {
      result = <SnippetResults parsed={query.data} onLoadInChat={onLoadInChat} />;
    } else if (query.isFetching || query.isPending) {
      result = <p className="hub-muted">Fetching the record of {source.modelId}…</p>;
    }
  }

  return (
    <div className="hub-snippets">
      <form className="hub-toolbar" onSubmit={fetchRecord}>
        <label htmlFor={idField}>Model id</label>
        <input
          id={idField}
          value={modelId}
          placeholder="owner/name"
          autoComplete="off"
          spellCheck={false}
          onChange={(e) => setModelId(e.target.value)}
        />
        <button type="submit" disabled={modelId.trim() === ''}>
          Fetch from the Hub
        </button>
      </form>
      <fieldset className="hub-examples">
        <legend>Examples: the in-browser models (built-in records, work offline)</legend>
        {MODELS.map((m) => (
          <button
            key={m.id}
            type="button"
            onClick={() => {
              setModelId(m.id);
              setSource({
                kind: 'local',
                parsed: {
                  record: sampleModelRecord({ modelId: m.id, dtype: m.dtype }),
                  issues: [],
                },
              });
            }}
          >
            {m.label}
          </button>
        ))}
      </fieldset>
      <form className="hub-paste" onSubmit={usePaste}>
        <label htmlFor={pasteField}>
          Or paste a model record (JSON of /api/models/&#123;id&#125;)
        </label>
        <textarea
          id={pasteField}
          value={paste}
          rows={6}
          spellCheck={false}
          placeholder='{"id": "owner/name", "pipeline_tag": "text-generation", "library_name": "transformers", "tags": []}'
          aria-describedby={pasteError ? `${pasteField}-error` : undefined}
          aria-invalid={pasteError ? true : undefined}
          onChange={(e) => setPaste(e.target.value)}
        />
        {pasteError && (
          <p id={`${pasteField}-error`} role="alert" className="hub-error">
            {pasteError}
          </p>
        )}
        <button type="submit">Use pasted record</button>
      </form>
      <div aria-live="polite">{result}</div>
    </div>
  );
}
