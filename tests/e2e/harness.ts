/**
 * Shared end-to-end harness: static servers on loopback (the built app, a fake model host laid
 * out like the Hugging Face Hub), Debian's Chromium via playwright-core, and a network guard that
 * aborts (and records) every request to a non-loopback address.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  copyFileSync,
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  statSync,
} from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, extname, join, normalize, resolve, sep } from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const DIST = join(ROOT, 'dist');
export const TINY_MODEL_DIR = join(ROOT, 'tests', 'fixtures', 'generated', 'tiny-model');
/** Repo id under which the fake model host serves the tiny model. */
export const TINY_MODEL_ID = 'local/tiny-random-llama';

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.onnx': 'application/octet-stream',
};

export interface RunningServer {
  url: string;
  port: number;
  server: Server;
  /** Paths requested, in order (for asserting what was fetched). */
  requests: string[];
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;

export async function listen(handler: Handler, port = 0): Promise<RunningServer> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    void Promise.resolve(handler(req, res)).then((handled) => {
      if (!handled) {
        res.statusCode = 404;
        res.end('not found');
      }
    });
  });
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}/`,
    port: actual,
    server,
    requests,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

function sendFile(res: ServerResponse, file: string, extraHeaders: Record<string, string> = {}) {
  const size = statSync(file).size;
  res.writeHead(200, {
    'Content-Type': MIME[extname(file)] ?? 'application/octet-stream',
    'Content-Length': String(size),
    'Access-Control-Allow-Origin': '*',
    ...extraHeaders,
  });
  createReadStream(file).pipe(res);
}

function safeJoin(root: string, urlPath: string): string | null {
  const p = normalize(join(root, decodeURIComponent(urlPath)));
  return p === root || p.startsWith(root + sep) ? p : null;
}

/**
 * Serves the files of `dir` with an SPA fallback to index.html; `headers` gives the extra headers
 * for a URL path.
 */
function serveFolder(
  dir: string,
  headers: (path: string) => Record<string, string>,
  port = 0,
): Promise<RunningServer> {
  return listen((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const candidate = safeJoin(dir, path);
    const file =
      candidate && existsSync(candidate) && statSync(candidate).isFile()
        ? candidate
        : join(dir, 'index.html');
    sendFile(res, file, headers(file === candidate ? path : '/index.html'));
    return true;
  }, port);
}

/** Serves the built app with an SPA fallback to index.html. */
export function serveDist(port = 0): Promise<RunningServer> {
  if (!existsSync(join(DIST, 'index.html')))
    throw new Error('dist/ is missing: run `npm run build` first');
  return serveFolder(
    DIST,
    (path) =>
      path.startsWith('/assets/')
        ? { 'Cache-Control': 'public, max-age=31536000, immutable' }
        : { 'Cache-Control': 'no-cache' },
    port,
  );
}

/**
 * Serves another built app folder (a mock-mode build: `npm run build:mock`) with an SPA fallback
 * to index.html; MSW's worker script may control the whole origin.
 */
export function serveDir(dir: string): Promise<RunningServer> {
  if (!existsSync(join(dir, 'index.html')))
    throw new Error(`${dir} is missing: run \`npm run build\` and \`npm run build:mock\``);
  return serveFolder(dir, () => ({ 'Cache-Control': 'no-cache', 'Service-Worker-Allowed': '/' }));
}

/**
 * A fake model host laid out like the Hub: `/{owner}/{name}/resolve/main/{file}` maps to
 * `dir/{file}` for each repo in `repos`. `override` can answer a path first (errors, corruption).
 */
export function serveModels(
  repos: Record<string, string>,
  override?: (repo: string, file: string, res: ServerResponse) => boolean,
): Promise<RunningServer> {
  return listen((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const m = /^\/([^/]+\/[^/]+)\/resolve\/[^/]+\/(.+)$/.exec(path);
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'Access-Control-Allow-Origin': '*',
        'Access-Control-Allow-Headers': '*',
      });
      res.end();
      return true;
    }
    if (!m) return false;
    const [, repo = '', file = ''] = m;
    if (override?.(repo, file, res)) return true;
    const dir = repos[repo];
    const full = dir ? safeJoin(dir, file) : null;
    if (!full || !existsSync(full)) {
      res.writeHead(404, { 'Access-Control-Allow-Origin': '*' });
      res.end('Entry not found');
      return true;
    }
    sendFile(res, full);
    return true;
  });
}

/** The built app and a model host, for the tests of one file. */
export interface AppAndModels {
  readonly app: RunningServer;
  readonly models: RunningServer;
  /** The app with this model host, then `query` (`&extraModel=…&maxTokens=…`, a `#/route`). */
  url(query: string): string;
}

/** The app served at `app`, loading models from `models`, then `query`. */
export const appUrl = (app: RunningServer, models: RunningServer, query: string) =>
  `${app.url}?modelHost=${encodeURIComponent(models.url)}${query}`;

/**
 * Serves the built app (serveDist) and a model host for `repos` (serveModels) from before the
 * file's first test to after its last.
 */
export function serveAppAndModels(
  repos: Record<string, string>,
  override?: Parameters<typeof serveModels>[1],
): AppAndModels {
  let app: RunningServer | undefined;
  let models: RunningServer | undefined;
  beforeAll(async () => {
    app = await serveDist();
    models = await serveModels(repos, override);
  });
  afterAll(async () => {
    await app?.close();
    await models?.close();
  });
  const started = () => {
    if (!app || !models) throw new Error('the servers start in beforeAll');
    return { app, models };
  };
  return {
    get app() {
      return started().app;
    },
    get models() {
      return started().models;
    },
    url: (query) => appUrl(started().app, started().models, query),
  };
}

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Non-loopback URLs the page tried to reach (all aborted). */
  foreignRequests: string[];
  /** Console messages of type error, for diagnostics. */
  consoleErrors: string[];
  close(): Promise<void>;
}

function isLoopback(url: string): boolean {
  try {
    const u = new URL(url);
    if (u.protocol === 'data:' || u.protocol === 'blob:' || u.protocol === 'about:') return true;
    return ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
  } catch {
    return true;
  }
}

/** Launches Debian's Chromium with a fresh profile; `webgpu` adds SwiftShader WebGPU. */
export async function launch(opts: {
  webgpu: boolean;
  viewport?: { width: number; height: number };
}): Promise<Browser> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'e2e-profile-'));
  const args = [
    ...CHROMIUM_FLAGS,
    ...(opts.webgpu
      ? ['--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-angle=swiftshader']
      : []),
  ];
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args,
    ignoreDefaultArgs: ['--enable-automation'],
    viewport: opts.viewport ?? { width: 1280, height: 900 },
    serviceWorkers: 'allow',
  });
  const foreignRequests: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (isLoopback(url)) return route.continue();
    foreignRequests.push(url);
    return route.abort('blockedbyclient');
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const consoleErrors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') consoleErrors.push(msg.text());
  });
  page.on('pageerror', (err) => consoleErrors.push(String(err)));
  return {
    context,
    page,
    foreignRequests,
    consoleErrors,
    close: async () => {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Where screenshots go (the README's copies in docs/: `screenshot` with `docs`). */
export const SCREENSHOT_DIR = join(ROOT, 'test-results');

/**
 * Saves a screenshot of the page as `SCREENSHOT_DIR/{name}.png` (`name` may hold a folder) and
 * returns its path. With `docs`, `UPDATE_DOCS_SCREENSHOTS=1` also refreshes the README's copy in
 * docs/.
 */
export async function screenshot(
  page: Page,
  name: string,
  options: { fullPage?: boolean; docs?: boolean } = {},
): Promise<string> {
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  mkdirSync(dirname(path), { recursive: true });
  await page.screenshot({ path, fullPage: options.fullPage });
  if (options.docs && process.env.UPDATE_DOCS_SCREENSHOTS)
    copyFileSync(path, join(ROOT, 'docs', basename(path)));
  return path;
}

/**
 * Launches Chromium (see launch), runs `prepare` (listeners, permissions, init scripts: what must
 * be in place before the first navigation), opens `url` and runs `steps`; then expects that the
 * page tried no non-loopback request (but those `expectedForeign` matches, which are aborted all
 * the same) and, with `noPageErrors`, threw no error. On a failure the page's console errors are
 * printed. The browser is closed in every case.
 */
export async function inBrowser(
  url: string,
  opts: Parameters<typeof launch>[0] & {
    noPageErrors?: boolean;
    expectedForeign?: RegExp;
    prepare?: (browser: Browser) => Promise<void> | void;
  },
  steps: (browser: Browser) => Promise<void>,
): Promise<void> {
  const browser = await launch(opts);
  const pageErrors: string[] = [];
  browser.page.on('pageerror', (e) => pageErrors.push(String(e)));
  try {
    await opts.prepare?.(browser);
    await browser.page.goto(url);
    await steps(browser);
    if (opts.noPageErrors) expect(pageErrors).toEqual([]);
    const { expectedForeign } = opts;
    expect(
      browser.foreignRequests.filter((u) => !expectedForeign?.test(u)),
      'requests beyond this machine',
    ).toEqual([]);
  } catch (error) {
    if (browser.consoleErrors.length)
      console.log(`console errors:\n${browser.consoleErrors.join('\n')}`);
    throw error;
  } finally {
    await browser.close();
  }
}

/** Chooses the model whose picker option matches `label`. */
export async function chooseModel(page: Page, label: RegExp): Promise<void> {
  await page.getByRole('button', { name: /^Model:/ }).click();
  await page.getByRole('option', { name: label }).click();
}

/** Chooses a model and clicks Load model. */
export async function startLoading(page: Page, label: RegExp): Promise<void> {
  await chooseModel(page, label);
  await page.getByRole('button', { name: 'Load model' }).click();
}

/** Chooses and loads a model; resolves once the chat says the model is ready. */
export async function loadModel(page: Page, label: RegExp): Promise<void> {
  await startLoading(page, label);
  await expect
    .poll(() => page.getByRole('textbox', { name: 'Message' }).getAttribute('title'), {
      timeout: 120_000,
    })
    .toBe('Model is ready');
}

/**
 * Chooses and tries to load a model; resolves once `alert` (the page's alert role by default)
 * contains `message` (a string) or matches it (a pattern). Returns `alert`.
 */
export async function failToLoad(
  page: Page,
  label: RegExp,
  message: string | RegExp,
  { alert = page.getByRole('alert'), timeout = 60_000 }: { alert?: Locator; timeout?: number } = {},
): Promise<Locator> {
  await startLoading(page, label);
  if (typeof message === 'string')
    await expect.poll(() => alert.textContent(), { timeout }).toContain(message);
  else await expect.poll(() => alert.textContent(), { timeout }).toMatch(message);
  return alert;
}

/** Opens Generation settings unless they are open (`shown`, one of their fields, is visible). */
export async function openSettings(page: Page, shown = 'System prompt'): Promise<void> {
  if (!(await page.getByLabel(shown).isVisible()))
    await page.getByText('Generation settings').click();
}

/** Sets the generation setting labelled `label` to `value`, opening the settings first. */
export async function setSetting(page: Page, label: string, value: string): Promise<void> {
  await openSettings(page, label);
  await page.getByLabel(label).fill(value);
}

/** Types `text` into the message box and sends it with Enter; returns the message box. */
export async function send(page: Page, text: string): Promise<Locator> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
  return box;
}

/**
 * Waits for a reply to be complete (the speed line's "Generated N tokens in X seconds", and
 * `before` + 1 assistant bubbles) and returns the last assistant bubble's text.
 */
export async function waitForReply(page: Page, before: number): Promise<string> {
  await expect
    .poll(() => page.locator('.speed').textContent(), { timeout: 120_000 })
    .toMatch(/Generated \d+ tokens in \d+\.\d{2} seconds/);
  await expect.poll(() => page.locator('.bubble-assistant').count()).toBe(before + 1);
  return (await page.locator('.bubble-assistant').last().textContent()) ?? '';
}

/** Sends `text` from the message box and returns the reply once it is complete (waitForReply). */
export async function ask(page: Page, text: string): Promise<string> {
  const before = await page.locator('.bubble-assistant').count();
  await send(page, text);
  return waitForReply(page, before);
}

/** The N of the speed line's "Generated N tokens" (NaN without one). */
export async function generatedTokens(page: Page): Promise<number> {
  return Number(
    /Generated (\d+) tokens/.exec((await page.locator('.speed').textContent()) ?? '')?.[1],
  );
}
