/**
 * After `npm run build`: every URL the service worker precaches exists in dist/ (cache.addAll
 * rejects on a single 404 and the worker never installs), and every script the build emitted is
 * precached (a lazy chunk left out would fail offline). No browser: reads dist/ only.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIST } from './harness';
import { fileForUrl } from '../../src/service-worker/precache';

function precached(): string[] {
  const sw = readFileSync(join(DIST, 'sw.js'), 'utf8');
  const list = /const PRECACHE = (\[.*\]);/.exec(sw)?.[1];
  if (!list) throw new Error('dist/sw.js has no PRECACHE list: was the build plugin removed?');
  return JSON.parse(list) as string[];
}

describe('precache list of dist/sw.js', () => {
  it('names only files that exist in dist/', () => {
    const missing = precached().filter((url) => !existsSync(join(DIST, fileForUrl(url))));
    expect(missing).toEqual([]);
  });

  it('covers the shell, every emitted script and style, the manifest and its icons', () => {
    const list = new Set(precached());
    const built = readdirSync(join(DIST, 'assets'))
      .filter((name) => /\.(js|css)$/.test(name))
      .map((name) => `/assets/${name}`);
    expect(built.length).toBeGreaterThan(0);
    expect(built.filter((url) => !list.has(url))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(DIST, 'manifest.webmanifest'), 'utf8')) as {
      icons: { src: string }[];
    };
    for (const url of ['/', '/manifest.webmanifest', ...manifest.icons.map((i) => i.src)])
      expect(list, url).toContain(url);
    expect(list).not.toContain('/sw.js');
    expect(list).not.toContain('/mockServiceWorker.js');
  });
});
