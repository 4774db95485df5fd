/**
 * The service's Hub cache (config.hubCacheDir, every trainer's HF_HUB_CACHE), read from
 * huggingface_hub's documented cache layout rather than through the trainer's interpreter, so
 * listing it costs no Python start and works before the trainer's packages are installed:
 *
 *     models--{org}--{name}/blobs/{hash}          each file once
 *     models--{org}--{name}/snapshots/{commit}/   one folder per revision (links into blobs/)
 *     models--{org}--{name}/refs/{branch}         a branch's commit
 *     .locks/models--{org}--{name}/               the library's per-file download locks
 *
 * Removing a model removes its folder and its locks (what huggingface_hub's own
 * `scan_cache_dir().delete_revisions(...)` does for every revision at once).
 */
import type { Dirent } from 'node:fs';
import { lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { HubCacheDomain } from './routes/hub-cache';
import type { CachedModel, HubCache } from '../../src/shared/training-api';
import { trainingMessages } from '../../src/shared/training-messages';
import { busy, notFound } from './errors';

const PREFIX = 'models--';

const folderOf = (id: string) => PREFIX + id.replace('/', '--');

async function entries(dir: string): Promise<Dirent[]> {
  return readdir(dir, { withFileTypes: true }).catch((): Dirent[] => []);
}

/** Bytes and newest access time of the files in `blobs/`. */
async function blobs(dir: string): Promise<{ bytes: number; lastUsedMs: number }> {
  let bytes = 0;
  let lastUsedMs = 0;
  for (const entry of await entries(join(dir, 'blobs'))) {
    if (!entry.isFile()) continue;
    const stat = await lstat(join(dir, 'blobs', entry.name)).catch(() => null);
    if (!stat) continue;
    bytes += stat.size;
    lastUsedMs = Math.max(lastUsedMs, stat.atimeMs, stat.mtimeMs);
  }
  return { bytes, lastUsedMs };
}

/**
 * GET /hub-cache: the cache's folder, its total size and each model in it; `inUse` holds the
 * base model ids of the runs going now.
 */
export async function listHubCache(dir: string, inUse: ReadonlySet<string>): Promise<HubCache> {
  const models: CachedModel[] = [];
  for (const entry of await entries(dir)) {
    if (!entry.isDirectory() || !entry.name.startsWith(PREFIX)) continue;
    const id = entry.name.slice(PREFIX.length).replace('--', '/');
    const folder = join(dir, entry.name);
    const { bytes, lastUsedMs } = await blobs(folder);
    const revisions = (await entries(join(folder, 'snapshots'))).filter((e) =>
      e.isDirectory(),
    ).length;
    models.push({
      id,
      bytes,
      revisions,
      ...(lastUsedMs > 0 ? { lastUsed: new Date(lastUsedMs).toISOString() } : {}),
      inUse: inUse.has(id),
    });
  }
  models.sort((a, b) => a.id.localeCompare(b.id));
  return { dir, bytes: models.reduce((sum, m) => sum + m.bytes, 0), models };
}

/**
 * DELETE /hub-cache/models/{org}/{name}: removes the model's files; refused while a run going now
 * trains from it (it reads them), and 404 when the cache does not hold it.
 */
export async function removeCachedModel(
  dir: string,
  id: string,
  inUse: ReadonlySet<string>,
): Promise<HubCache> {
  const folder = join(dir, folderOf(id));
  const held = await lstat(folder).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!held) throw notFound(trainingMessages.notInHubCache(dir, id));
  if (inUse.has(id)) throw busy(trainingMessages.hubModelInUse(id));
  await rm(folder, { recursive: true, force: true });
  await rm(join(dir, '.locks', folderOf(id)), { recursive: true, force: true });
  return listHubCache(dir, inUse);
}

/** The cache as the routes use it: `inUse` gives the base model ids of the runs going now. */
export class HubCacheStore implements HubCacheDomain {
  constructor(
    private readonly dir: string,
    private readonly inUse: () => ReadonlySet<string>,
  ) {}

  list(): Promise<HubCache> {
    return listHubCache(this.dir, this.inUse());
  }

  remove(id: string): Promise<HubCache> {
    return removeCachedModel(this.dir, id, this.inUse());
  }
}
