/**
 * `npm run bench:archive -- FOLDER`: the merged-model archive (GET /runs/{id}/exports/archive/
 * merged) made from FOLDER's files, against reading the same files plainly, in the same run: each
 * streamed to /dev/null, alternated `--runs N` times (default 1), with throughput, the ratio and
 * the peak resident memory while it streams. Without FOLDER: a 512 MiB sparse stand-in (`--smoke`).
 */
import {
  createReadStream,
  createWriteStream,
  mkdtempSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { archiveFiles, zipArchive, type PackedFile } from '../src/archives';

async function measure(label: string, stream: () => NodeJS.ReadableStream | Promise<void>) {
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const started = performance.now();
  const made = stream();
  if (made instanceof Promise) await made;
  else await pipeline(made, createWriteStream('/dev/null'));
  clearInterval(timer);
  return { label, seconds: (performance.now() - started) / 1000, peakMiB: peak / 2 ** 20 };
}

async function plainRead(files: readonly PackedFile[]) {
  for (const file of files)
    await pipeline(createReadStream(file.path), createWriteStream('/dev/null'));
}

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1] || 1) || 1;
let folder = args.find((arg) => !arg.startsWith('--') && arg !== String(runs));
let scratch: string | null = null;
if (!folder) {
  scratch = mkdtempSync(join(tmpdir(), 'archive-bench-'));
  writeFileSync(join(scratch, 'config.json'), '{"model_type": "llama"}');
  writeFileSync(join(scratch, 'model.safetensors'), '');
  truncateSync(join(scratch, 'model.safetensors'), 512 * 2 ** 20);
  folder = scratch;
}
const files = await archiveFiles('merged', folder);
if (!files?.length) throw new Error(`${folder}: no files to archive`);
const bytes = files.reduce((sum, file) => sum + file.bytes, 0);
console.log(
  `${files.length} files, ${(bytes / 1e9).toFixed(2)} GB; load average ${loadavg()[0]?.toFixed(1)}`,
);
const results: Awaited<ReturnType<typeof measure>>[] = [];
for (let run = 0; run < runs; run++) {
  results.push(await measure('plain read', () => plainRead(files)));
  results.push(
    await measure('zip (yazl, stored)', () => zipArchive('bench', 'merged', files).stream),
  );
}
const median = (label: string) => {
  const times = results
    .filter((r) => r.label === label)
    .map((r) => r.seconds)
    .sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? NaN;
};
for (const label of ['plain read', 'zip (yazl, stored)']) {
  const seconds = median(label);
  const peak = Math.max(...results.filter((r) => r.label === label).map((r) => r.peakMiB));
  console.log(
    `${label}: ${seconds.toFixed(1)} s, ${(bytes / 1e6 / seconds).toFixed(0)} MB/s, peak RSS ${peak.toFixed(0)} MiB`,
  );
}
console.log(
  `zip ÷ plain read time: ${(median('zip (yazl, stored)') / median('plain read')).toFixed(2)}×; load average ${loadavg()[0]?.toFixed(1)}`,
);
if (scratch) rmSync(scratch, { recursive: true, force: true });
