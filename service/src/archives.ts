/**
 * A run's adapter and merged model as zip downloads, made with yazl while they are sent: stored
 * (the weights do not compress), ZIP64 past 4 GB, each file read as the response drains (no
 * whole-file buffering). yazl gives the zip's exact size before a byte is read, from the files'
 * sizes alone, so GET /runs/{id}/exports lists it and the download has a Content-Length.
 */
import { createReadStream, type ReadStream } from 'node:fs';
import { readFile, readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { ZipFile } from 'yazl';
import {
  ADAPTER_CHECK,
  archived,
  archiveStem,
  type ArchiveFolder,
} from '../../src/shared/run-exports';
import type { ArchiveKind } from '../../src/shared/training-api';
import { isInside } from './paths';

/** One file an archive packs: its name in the folder, size, time and real path. */
export interface PackedFile {
  name: string;
  bytes: number;
  mtime: Date;
  path: string;
}

/**
 * The plain files of `folder` that an archive of `kind` packs, in name order; null when the
 * folder does not exist. A link is followed only while its target stays inside the folder.
 */
export async function archiveFiles(
  kind: ArchiveKind,
  folder: string,
): Promise<PackedFile[] | null> {
  let root: string;
  try {
    root = await realpath(folder);
    if (!(await stat(root)).isDirectory()) return null;
  } catch {
    return null;
  }
  const files: PackedFile[] = [];
  for (const name of (await readdir(root)).sort()) {
    if (!archived(kind, name)) continue;
    const path = await realpath(join(root, name)).catch(() => null);
    if (!path || !isInside(root, path)) continue;
    const info = await stat(path).catch(() => null);
    if (info?.isFile()) files.push({ name, bytes: info.size, mtime: info.mtime, path });
  }
  return files;
}

/**
 * The adapter's check report in `folder` as run-exports.ts' adapterCheck reads it: parsed JSON,
 * its text when it is not JSON, null when there is none (or for the merged model).
 */
export async function archiveCheck(kind: ArchiveKind, folder: string): Promise<unknown> {
  if (kind !== 'adapter') return null;
  let text: string;
  try {
    text = await readFile(join(folder, ADAPTER_CHECK), 'utf8');
  } catch {
    return null;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed;
  } catch {
    return text;
  }
}

/** The folder as run-exports.ts judges it (names and sizes, and the adapter's check). */
export const archiveFolder = (
  path: string,
  files: PackedFile[] | null,
  check: unknown = null,
): ArchiveFolder => ({
  path,
  files: files && files.map(({ name, bytes }) => ({ name, bytes })),
  check,
});

/**
 * The zip of `files` under the folder `<run>-<kind>/`: its output stream reads the files as it is
 * drained, and `size` is its exact length in bytes. With `read` false no file is ever opened (yazl
 * asks for the first file's stream at once; it never gets one): only the size is wanted.
 */
function zipOf(runId: string, kind: ArchiveKind, files: readonly PackedFile[], read: boolean) {
  const zip = new ZipFile();
  const stem = archiveStem(runId, kind);
  const opened: ReadStream[] = [];
  for (const file of files)
    zip.addReadStreamLazy(
      `${stem}/${file.name}`,
      { size: file.bytes, mtime: file.mtime, compress: false },
      (done) => {
        if (!read) return;
        const stream = createReadStream(file.path);
        opened.push(stream);
        done(null, stream);
      },
    );
  const size = new Promise<number>((resolve, reject) =>
    // @types/yazl declares the callback without its argument: the size, or -1 when unknown.
    zip.end(undefined, (...args: unknown[]) => {
      const [bytes] = args;
      if (typeof bytes === 'number' && bytes >= 0) resolve(bytes);
      else reject(new Error('the zip size could not be known before reading the files'));
    }),
  );
  const stream = zip.outputStream;
  if (!(stream instanceof PassThrough)) throw new Error('yazl: its output is not a PassThrough');
  // A download that stops early (the client went away) closes the file being read; a file that
  // changed size or vanished mid-download ends the response short: a truncated download, never
  // a zip whose contents differ from its listing.
  stream.on('close', () => opened.forEach((file) => file.destroy()));
  zip.on('error', (error: Error) => stream.destroy(error));
  return { stream, size };
}

/** The zip to send, read from the files as it is drained, and its exact size. */
export const zipArchive = (runId: string, kind: ArchiveKind, files: readonly PackedFile[]) =>
  zipOf(runId, kind, files, true);

/** The zip's size without opening a file (GET /runs/{id}/exports' listing, HEAD). */
export const zipSize = (runId: string, kind: ArchiveKind, files: readonly PackedFile[]) =>
  zipOf(runId, kind, files, false).size;
