/**
 * GET /hub-cache and DELETE /hub-cache/models/{org}/{name} over a cache folder laid out as
 * huggingface_hub writes it (blobs, snapshots linking to them, refs, locks); the real download
 * that fills one is in hub-download-real.test.ts.
 */
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HubCache } from '../../src/shared/training-api';
import {
  expectHeldByRun,
  removeCached,
  serviceForFile,
  startRun,
  type TestService,
} from './helpers';

let svc: TestService;
serviceForFile((s) => (svc = s));

/** A model in the cache: one blob per file, `revisions` snapshots linking to them. */
function cacheModel(id: string, files: Record<string, number>, revisions = 1) {
  const folder = join(svc.config.hubCacheDir, `models--${id.replace('/', '--')}`);
  mkdirSync(join(folder, 'blobs'), { recursive: true });
  mkdirSync(join(folder, 'refs'), { recursive: true });
  mkdirSync(join(svc.config.hubCacheDir, '.locks', `models--${id.replace('/', '--')}`), {
    recursive: true,
  });
  for (let r = 0; r < revisions; r++) {
    const commit = `${r}`.repeat(40);
    mkdirSync(join(folder, 'snapshots', commit), { recursive: true });
    for (const [name, size] of Object.entries(files)) {
      const blob = join(folder, 'blobs', `${name}-blob`);
      writeFileSync(blob, Buffer.alloc(size));
      symlinkSync(`../../blobs/${name}-blob`, join(folder, 'snapshots', commit, name));
    }
    writeFileSync(join(folder, 'refs', 'main'), commit);
  }
  return folder;
}

const remove = (path: string) => removeCached(svc, path.replace('/hub-cache/models/', ''));

describe('the Hub cache', () => {
  it('is the service setting: every trainer gets it as HF_HUB_CACHE', async () => {
    expect(svc.config.hubCacheDir).toBe(join(svc.config.dataDir, 'hub-cache'));
    const id = await startRun(svc, 'args.mjs');
    await svc.waitForEnd(id);
    expect(svc.spawned.at(-1)?.env?.HF_HUB_CACHE).toBe(svc.config.hubCacheDir);
  });

  it('lists each model with its size (each blob once) and revisions', async () => {
    cacheModel('org/small', { 'config.json': 100, 'model.safetensors': 5000 }, 2);
    cacheModel('other/big', { 'config.json': 10, 'model.safetensors': 20000 });
    const reply = await svc.request({ path: '/hub-cache' });
    expect(reply.status).toBe(200);
    const cache = reply.json as HubCache;
    expect(cache.dir).toBe(svc.config.hubCacheDir);
    expect(cache.bytes).toBe(25110);
    expect(cache.models.map(({ lastUsed: _lastUsed, ...m }) => m)).toEqual([
      { id: 'org/small', bytes: 5100, revisions: 2, inUse: false },
      { id: 'other/big', bytes: 20010, revisions: 1, inUse: false },
    ]);
    expect(Date.parse(cache.models[0]?.lastUsed ?? '')).toBeGreaterThan(Date.now() - 60_000);
  });

  it('removes one model and its locks; 404 for a model not there; 400 for a bad id', async () => {
    const folder = cacheModel('org/gone', { 'config.json': 10 });
    const removed = await remove('/hub-cache/models/org/gone');
    expect(removed.status, removed.text).toBe(200);
    expect((removed.json as HubCache).models.map((m) => m.id)).not.toContain('org/gone');
    expect(existsSync(folder)).toBe(false);
    expect(existsSync(join(svc.config.hubCacheDir, '.locks', 'models--org--gone'))).toBe(false);
    const again = await remove('/hub-cache/models/org/gone');
    expect(again.status).toBe(404);
    expect(again.text).toContain('holds no model org/gone');
    const bad = await remove('/hub-cache/models/org/..');
    expect(bad.status).toBe(400);
    const dashes = await remove('/hub-cache/models/org/a--b');
    expect(dashes.status).toBe(400);
    expect(dashes.text).toContain('name is not a Hub name');
  });

  it('refuses (409) to remove the base of the run going now, and shows it in use', async () => {
    cacheModel('org/held', { 'config.json': 10 });
    await expectHeldByRun(svc, 'org/held');
    expect((await remove('/hub-cache/models/org/held')).status).toBe(200);
  });
});
