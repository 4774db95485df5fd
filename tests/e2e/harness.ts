/**
 * Shared end-to-end harness: static servers on loopback (the built app, a fake model host laid
 * out like the Hugging Face Hub), Debian's Chromium via playwright-core, and a network guard that
 * aborts (and records) every request to a non-loopback address.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createReadStream, existsSync, mkdtempSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve, sep } from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';

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

/** Serves the built app with an SPA fallback to index.html. */
export function serveDist(port = 0): Promise<RunningServer> {
  if (!existsSync(join(DIST, 'index.html')))
    throw new Error('dist/ is missing: run `npm run build` first');
  return listen((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const file = safeJoin(DIST, path);
    if (file && existsSync(file) && statSync(file).isFile()) {
      sendFile(
        res,
        file,
        path.startsWith('/assets/')
          ? { 'Cache-Control': 'public, max-age=31536000, immutable' }
          : { 'Cache-Control': 'no-cache' },
      );
    } else {
      sendFile(res, join(DIST, 'index.html'), { 'Cache-Control': 'no-cache' });
    }
    return true;
  }, port);
}

/**
 * Serves another built app folder (a mock-mode build: `npm run build:mock`) with an SPA fallback
 * to index.html; MSW's worker script may control the whole origin.
 */
export function serveDir(dir: string): Promise<RunningServer> {
  if (!existsSync(join(dir, 'index.html')))
    throw new Error(`${dir} is missing: run \`npm run build\` and \`npm run build:mock\``);
  return listen((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const candidate = safeJoin(dir, path);
    const file =
      candidate && existsSync(candidate) && statSync(candidate).isFile()
        ? candidate
        : join(dir, 'index.html');
    sendFile(res, file, { 'Cache-Control': 'no-cache', 'Service-Worker-Allowed': '/' });
    return true;
  });
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

/** Where screenshots go (committed ones are copied to docs/ by hand). */
export const SCREENSHOT_DIR = join(ROOT, 'test-results');

/** Chooses the model whose picker option matches `label`. */
export async function chooseModel(page: Page, label: RegExp): Promise<void> {
  await page.getByRole('button', { name: /^Model:/ }).click();
  await page.getByRole('option', { name: label }).click();
}

/** Chooses and loads a model; resolves once the chat says the model is ready. */
export async function loadModel(page: Page, label: RegExp): Promise<void> {
  await chooseModel(page, label);
  await page.getByRole('button', { name: 'Load model' }).click();
  await expect
    .poll(() => page.getByRole('textbox', { name: 'Message' }).getAttribute('title'), {
      timeout: 120_000,
    })
    .toBe('Model is ready');
}

/**
 * Sends `text` from the message box and returns the reply once it is complete (a new assistant
 * bubble, and the speed line's "Generated N tokens in X seconds").
 */
export async function ask(page: Page, text: string): Promise<string> {
  const before = await page.locator('.bubble-assistant').count();
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
  await expect
    .poll(() => page.locator('.speed').textContent(), { timeout: 120_000 })
    .toMatch(/Generated \d+ tokens in \d+\.\d{2} seconds/);
  await expect.poll(() => page.locator('.bubble-assistant').count()).toBe(before + 1);
  return (await page.locator('.bubble-assistant').last().textContent()) ?? '';
}
