/**
 * A finished run's exports for local runtimes (GET /runs/{id}/exports): each GGUF file the trainer
 * kept, as a download link with its type, size and llama.cpp's check ("GGUF Q8_0 · 1.30GB ·
 * checked in llama.cpp"), a file left out with its failure, the Ollama Modelfile, or why there is
 * no GGUF. Shown in the Runs list and in the finished run's summary, for a run asked for GGUF.
 */
import { useQuery } from '@tanstack/react-query';
import type { GgufFile, RunInfo } from '../../shared/training-api';
import { trainingKeys } from '../../shared/training-keys';
import { askedForGguf, exportFileUrl } from '../../shared/run-exports';
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

/** The run's GGUF exports; nothing for a run not asked for GGUF or not ended well. */
export default function RunExports({ run }: { run: Pick<RunInfo, 'id' | 'state' | 'options'> }) {
  const { trainingUrl, runExports } = useServices();
  const shown = run.state === 'succeeded' && askedForGguf(run);
  const exports = useQuery({
    queryKey: trainingKeys.exports(trainingUrl, run.id),
    queryFn: ({ signal }) => runExports(run.id, signal),
    enabled: shown,
    retry: false,
  });
  if (!shown) return null;
  if (exports.error)
    return (
      <p role="alert" className="training-failed">
        GGUF exports: {exports.error.message}
      </p>
    );
  if (!exports.data) return <p className="training-hint">Reading the GGUF exports…</p>;
  const { gguf } = exports.data;
  const url = (file: string) => exportFileUrl(trainingUrl, run.id, file);
  return (
    <div className="training-run-exports">
      {gguf.state !== 'written' && <p className="training-hint">No GGUF: {gguf.reason}</p>}
      {(gguf.files.length > 0 || gguf.modelfile || gguf.modelfile_skipped) && (
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
