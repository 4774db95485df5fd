/**
 * A dataset given to the panel as a file: read in the page (JSON array or JSONL of
 * `{prompt, completion}` or chat-format `{messages}` entries, shared/dataset-file.ts), then stored on the training service as **Use for
 * training** stores one (PUT /datasets/{name}, the service's validation); the Data file field
 * then holds the stored path. Every refusal names the file.
 */
import { useId, useState, type ChangeEvent } from 'react';
import { useServices } from '../services';
import { errorMessage } from '../../shared/errors';
import { DATASET_LIMIT_BYTES } from '../../shared/training-api';
import { parseDatasetFile } from '../../shared/dataset-file';

/** The file's text (FileReader: also where `Blob.text` is missing, as in jsdom). */
function readText(file: File): Promise<string> {
  return new Promise((ok, fail) => {
    const reader = new FileReader();
    reader.onload = () => ok(typeof reader.result === 'string' ? reader.result : '');
    reader.onerror = () => fail(reader.error ?? new Error('the file could not be read'));
    reader.readAsText(file);
  });
}

type Upload =
  | { state: 'idle' }
  | { state: 'storing'; file: string }
  | { state: 'stored'; file: string; path: string; entries: number }
  | { state: 'failed'; message: string };

export function DatasetFileInput({
  disabled,
  onStored,
}: {
  disabled: boolean;
  /** The path the service stored it under: the run's data file. */
  onStored: (path: string) => void;
}) {
  const services = useServices();
  const id = useId();
  const [upload, setUpload] = useState<Upload>({ state: 'idle' });

  async function choose(event: ChangeEvent<HTMLInputElement>) {
    const input = event.currentTarget;
    const file = input.files?.[0];
    if (!file) return;
    setUpload({ state: 'storing', file: file.name });
    try {
      let text = '';
      // Too big: refused by its size, never read.
      if (file.size <= DATASET_LIMIT_BYTES) {
        try {
          text = await readText(file);
        } catch (error) {
          setUpload({
            state: 'failed',
            message: `${file.name} could not be read: ${errorMessage(error)}`,
          });
          return;
        }
      }
      const read = parseDatasetFile(file.name, file.size, text);
      if (!read.ok) {
        setUpload({ state: 'failed', message: read.error });
        return;
      }
      const path = await services.storeDataset(read.entries, read.name);
      setUpload({ state: 'stored', file: file.name, path, entries: read.entries.length });
      onStored(path);
    } catch (error) {
      setUpload({
        state: 'failed',
        message: `${file.name} could not be stored on the training service: ${errorMessage(error)}`,
      });
    } finally {
      // The same file again (after fixing it) is a new choice.
      input.value = '';
    }
  }

  return (
    <div className="training-upload">
      <label htmlFor={id}>Or upload a dataset file</label>
      <input
        id={id}
        type="file"
        accept=".json,.jsonl,application/json"
        disabled={disabled || upload.state === 'storing'}
        onChange={(event) => void choose(event)}
      />
      {upload.state === 'storing' && (
        <p className="training-hint" role="status">
          Storing {upload.file} on the training service…
        </p>
      )}
      {upload.state === 'stored' && (
        <p className="training-hint" role="status">
          Stored {upload.file} ({upload.entries} {upload.entries === 1 ? 'entry' : 'entries'}) as{' '}
          <code>{upload.path}</code>.
        </p>
      )}
      {upload.state === 'failed' && (
        <p className="training-failed" role="alert">
          {upload.message}
        </p>
      )}
    </div>
  );
}
