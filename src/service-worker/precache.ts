/**
 * The service worker's precache list, derived from what the build itself emitted (Vite's bundle)
 * plus the files copied from public/. Pure: vite.config.ts feeds it file names, tests feed it
 * lists. Only what the app needs to start offline is listed: the shell ('/'), every JS and CSS
 * file (lazy chunks and the worker bundle included), KaTeX's woff2 fonts, the web app manifest
 * and its icons. ONNX Runtime's wasm is left to transformers.js's own cache; KaTeX's woff/ttf
 * fallbacks are never fetched by a browser that takes woff2.
 */
const BUILT = /\.(js|mjs|css|woff2)$/;
const PUBLIC = /\.(webmanifest|png|svg|ico)$/;
/** Never precached: the service worker itself and MSW's worker (mock mode only). */
const NEVER = new Set(['sw.js', 'mockServiceWorker.js']);

export function precacheList(bundleFiles: readonly string[], publicFiles: readonly string[]) {
  const pick = (names: readonly string[], pattern: RegExp) =>
    names
      .map((name) => name.replace(/^\/+/, ''))
      .filter((name) => pattern.test(name) && !NEVER.has(name));
  const files = [...new Set([...pick(bundleFiles, BUILT), ...pick(publicFiles, PUBLIC)])].sort();
  return ['/', ...files.map((name) => `/${name}`)];
}

/** The file in the output folder that answers a precached URL ('/' is index.html). */
export function fileForUrl(url: string): string {
  return url === '/' ? 'index.html' : decodeURIComponent(url.replace(/^\//, ''));
}
