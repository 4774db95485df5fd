/**
 * An ended run's exports (GET /runs/{id}/exports): the LoRA adapter and the merged model as zip
 * downloads with their sizes ("Merged model · 2.47GB · zip of 7 files"; the adapter with its check
 * with PEFT), or why not; and, for a run asked for GGUF, each GGUF file the trainer kept, as a
 * download link with its type, size and llama.cpp's check ("GGUF Q8_0 · 1.30GB · checked in llama.cpp"), a file left out with its
 * failure, the Ollama Modelfile, or why there is no GGUF. Shown in the Runs list and in the
 * finished run's summary.
 */
import { useId, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  GGUF_CHOICES,
  type ExportRequest,
  type GgufFile,
  type RunArchive,
  type RunInfo,
} from '../../shared/training-api';
import { trainingKeys } from '../../shared/training-keys';
import { askedForGguf, exportArchiveUrl, exportFileUrl } from '../../shared/run-exports';
import { formatBytes } from '../../shared/format-bytes';
import { useServices } from '../services';

/** "12/12 clear-margin tokens agree with PyTorch", when the check compared any. */
function agreement(file: GgufFile): string {
  if (file.tokens_compared === null || file.tokens_agreed === null) return '';
  return ` (${file.tokens_agreed}/${file.tokens_compared} clear-margin tokens agree with PyTorch)`;
}

function GgufFileItem({ file, url }: { file: GgufFile; url: string }) {
  const label = `GGUF ${file.type}${file.bytes !== null ? ` · ${formatBytes(file.bytes)}` : ''}`;
  if (!file.passed)
    return (
      <li>
        {label} · left out: {file.failure}
      </li>
    );
  return (
    <li>
      <a href={url} download={file.name}>
        {label} · checked in llama.cpp
      </a>
      {agreement(file)}
    </li>
  );
}

/**
 * The adapter's check with PEFT beside its size ("checked with PEFT: logits match merged/ (max
 * 3.0e-6)"), or "not checked" for a run from before the check; nothing for the merged model. A
 * failed check is never offered: its refusal says why.
 */
function archiveCheck(archive: RunArchive): string {
  if (archive.kind !== 'adapter') return '';
  const difference = archive.check?.max_logit_difference;
  if (!archive.check || difference === null || difference === undefined) return ' · not checked';
  const max = difference === 0 ? '0' : difference.toExponential(1);
  return ` · checked with PEFT: logits match merged/ (max ${max})`;
}

const ARCHIVE_TEXT = {
  adapter: ['Adapter', 'PEFT safetensors, its config and the tokenizer'],
  merged: ['Merged model', 'Hugging Face layout, safetensors'],
} as const;

/**
 * One archive: a download link with its size, or why there is none — said for a run that
 * succeeded (an ended run that did not shows only what it can offer, e.g. the adapter saved
 * before a merge failed).
 */
function ArchiveItem({
  archive,
  url,
  succeeded,
}: {
  archive: RunArchive;
  url: string;
  succeeded: boolean;
}) {
  const [label, what] = ARCHIVE_TEXT[archive.kind];
  if (archive.name === null)
    return succeeded ? (
      <li>
        {label}: {archive.reason}
      </li>
    ) : null;
  return (
    <li>
      <a href={url} download={archive.name}>
        {label} · {formatBytes(archive.bytes ?? 0)} · zip of {archive.files} files
      </a>
      {archiveCheck(archive)} ({what})
    </li>
  );
}

/** How often a GGUF export being written is read again. */
const WRITING_POLL_MS = 2000;

/**
 * "Write GGUF" for a run that has none: POST /runs/{id}/exports with the type chosen, without
 * training again; the answer ("being written") replaces the listing, which is then polled.
 */
function WriteGguf({ runId, queryKey }: { runId: string; queryKey: readonly unknown[] }) {
  const { exportsClient } = useServices();
  const client = useQueryClient();
  const [choice, setChoice] = useState<ExportRequest['gguf']>('Q8_0');
  const id = useId();
  const write = useMutation({
    mutationFn: async () => (await exportsClient()).requestRunExport(runId, { gguf: choice }),
    onSuccess: (answer) => client.setQueryData(queryKey, answer),
  });
  return (
    <form
      className="training-write-gguf"
      onSubmit={(event) => {
        event.preventDefault();
        write.mutate();
      }}
    >
      <label htmlFor={id}>GGUF type</label>{' '}
      <select id={id} value={choice} onChange={(event) => setChoice(pick(event.target.value))}>
        {GGUF_CHOICES.map((value) => (
          <option key={value} value={value}>
            {value === 'both' ? 'F16 and Q8_0' : value}
          </option>
        ))}
      </select>{' '}
      <button type="submit" disabled={write.isPending}>
        Write GGUF
      </button>
      {write.error && (
        <p role="alert" className="training-failed">
          Write GGUF: {write.error.message}
        </p>
      )}
    </form>
  );
}

const pick = (value: string): ExportRequest['gguf'] =>
  GGUF_CHOICES.find((choice) => choice === value) ?? 'Q8_0';

/** The run's exports, once it has ended; nothing while it runs. */
export default function RunExports({
  run,
}: {
  run: Pick<RunInfo, 'id' | 'state' | 'options' | 'method'>;
}) {
  const { trainingUrl, exportsClient } = useServices();
  const shown = run.state !== 'running';
  const queryKey = trainingKeys.exports(trainingUrl, run.id);
  const exports = useQuery({
    queryKey,
    queryFn: async ({ signal }) => (await exportsClient()).fetchRunExports(run.id, signal),
    enabled: shown,
    retry: false,
    refetchInterval: (query) =>
      query.state.data?.gguf.state === 'writing' ? WRITING_POLL_MS : false,
  });
  const succeeded = run.state === 'succeeded';
  // A run that did not succeed may have written nothing (a script that failed at once has no
  // output folder): it shows what it can offer, never an error about what it never made.
  if (!shown || (!succeeded && !exports.data)) return null;
  if (exports.error)
    return (
      <p role="alert" className="training-failed">
        Exports: {exports.error.message}
      </p>
    );
  if (!exports.data) return <p className="training-hint">Reading the run's exports…</p>;
  const { gguf, archives } = exports.data;
  const url = (file: string) => exportFileUrl(trainingUrl, run.id, file);
  // A full fine-tune has no adapter: its merged model is the whole model (no line for it).
  const offered = archives.filter((archive) => archive.kind !== 'adapter' || run.method !== 'full');
  // Asked when the run started, or written since (POST /runs/{id}/exports).
  const ggufShown = succeeded && (askedForGguf(run) || gguf.state !== 'none');
  return (
    <div className="training-run-exports">
      {offered.some((archive) => archive.name !== null || succeeded) && (
        <ul aria-label="Downloads: adapter and merged model">
          {offered.map((archive) => (
            <ArchiveItem
              key={archive.kind}
              archive={archive}
              url={exportArchiveUrl(trainingUrl, run.id, archive.kind)}
              succeeded={succeeded}
            />
          ))}
        </ul>
      )}
      {gguf.state === 'writing' && (
        <p className="training-hint" role="status">
          {gguf.reason}
        </p>
      )}
      {ggufShown && (gguf.state === 'skipped' || gguf.state === 'none') && (
        <p className="training-hint">No GGUF: {gguf.reason}</p>
      )}
      {succeeded && (gguf.state === 'none' || gguf.state === 'skipped') && (
        <WriteGguf runId={run.id} queryKey={queryKey} />
      )}
      {ggufShown && (gguf.files.length > 0 || gguf.modelfile || gguf.modelfile_skipped) && (
        <ul aria-label="Downloads for llama.cpp and Ollama">
          {gguf.files.map((file) => (
            <GgufFileItem key={file.name} file={file} url={url(file.name)} />
          ))}
          {gguf.modelfile && (
            <li>
              <a href={url(gguf.modelfile.name)} download={gguf.modelfile.name}>
                Ollama Modelfile
              </a>{' '}
              (beside the GGUF file: <code>ollama create NAME -f Modelfile</code>)
            </li>
          )}
          {gguf.modelfile_skipped && <li>No Ollama Modelfile: {gguf.modelfile_skipped}</li>}
        </ul>
      )}
    </div>
  );
}
