/* global self, caches, fetch, URL, Request, Response */
// App-shell service worker: a loaded model keeps working offline after a reload.
// Model weights are cached by transformers.js in the Cache API ('transformers-cache');
// this worker caches the app's own files. The build fills in VERSION and PRECACHE
// (vite.config.ts, from the build's own bundle: src/service-worker/precache.ts).
const VERSION = '__VERSION__';
const PRECACHE = __PRECACHE__;
const CACHE = `app-shell-${VERSION}`;
// Every lookup ignores Vary: servers such as vite preview answer `Vary: Origin`, and module
// scripts are requested with an Origin header the precache requests lacked, so a lookup that
// honours Vary never matches and the offline reload shows a white page.
const LOOKUP = { ignoreVary: true };

self.addEventListener('install', (event) => {
  // A new version waits until the page asks for it (the "A new version is available" prompt);
  // the first install has nothing to wait for and activates at once.
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(PRECACHE.map((url) => new Request(url, { cache: 'reload' })))),
  );
});

self.addEventListener('message', (event) => {
  if (event.data && event.data.type === 'skip-waiting') void self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) =>
        Promise.all(
          keys
            .filter((k) => k.startsWith('app-shell-') && k !== CACHE)
            .map((k) => caches.delete(k)),
        ),
      )
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === 'navigate') {
    // Network first so a new deployment shows up; the cached shell when offline.
    event.respondWith(
      fetch(request)
        .then((response) => {
          const copy = response.clone();
          if (response.ok) void caches.open(CACHE).then((cache) => cache.put('/', copy));
          return response;
        })
        .catch(() =>
          caches
            .open(CACHE)
            .then((cache) => cache.match('/', LOOKUP))
            .then((r) => r || Response.error()),
        ),
    );
    return;
  }
  const path = url.pathname;
  if (!path.startsWith('/assets/') && (path === '/' || !PRECACHE.includes(path))) return;
  // Hashed assets never change: cache first (keyed by URL), and cache what loads later (wasm).
  event.respondWith(
    caches.open(CACHE).then((cache) =>
      cache.match(path, LOOKUP).then(
        (cached) =>
          cached ||
          fetch(request).then((response) => {
            if (response.ok && !response.headers.get('Vary')?.includes('*'))
              void cache.put(path, response.clone());
            return response;
          }),
      ),
    ),
  );
});
