import { describe, expect, it } from 'vitest';
import { fileForUrl, precacheList } from '../../src/service-worker/precache';

describe('precacheList', () => {
  it('lists the shell, every built script, style and woff2 font, and the manifest with its icons', () => {
    const list = precacheList(
      [
        'index.html',
        'assets/index-abc.js',
        'assets/llm.worker-def.js',
        'assets/katex-123.css',
        'assets/KaTeX_Main-Regular-1.woff2',
        'assets/KaTeX_Main-Regular-2.woff',
        'assets/KaTeX_Main-Regular-3.ttf',
        'assets/ort-wasm-simd-threaded.jsep-4.wasm',
        'sw.js',
      ],
      ['manifest.webmanifest', 'icons/icon-192.png', 'mockServiceWorker.js', 'notes.txt'],
    );
    expect(list).toEqual([
      '/',
      '/assets/KaTeX_Main-Regular-1.woff2',
      '/assets/index-abc.js',
      '/assets/katex-123.css',
      '/assets/llm.worker-def.js',
      '/icons/icon-192.png',
      '/manifest.webmanifest',
    ]);
  });

  it('names only files it was given: nothing is guessed from a pattern', () => {
    // Regression: the list once named /assets/katex.min-*.js, which the build never emits, so
    // cache.addAll rejected on a server answering 404 and the service worker never installed.
    expect(precacheList([], [])).toEqual(['/']);
    expect(precacheList(['assets/a.js', '/assets/a.js'], [])).toEqual(['/', '/assets/a.js']);
  });

  it('maps URLs to the files that answer them', () => {
    expect(fileForUrl('/')).toBe('index.html');
    expect(fileForUrl('/assets/a%20b.js')).toBe('assets/a b.js');
  });
});
