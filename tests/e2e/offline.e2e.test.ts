/**
 * Offline reload, as users get it: the app served by the very command `npm start` runs (vite
 * preview on 127.0.0.1:5173, which answers `Vary: Origin`), and again behind a server that sends
 * `Vary: Origin, Accept-Encoding` and 404 for unknown paths. In both: load the tiny model, chat,
 * take the network away (offline AND the model server stopped), reload, the page renders, the
 * model loads from the browser's caches and answers again. Then a new build's service worker
 * shows "A new version is available" and Reload switches to it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DIST,
  ROOT,
  TINY_MODEL_DIR,
  TINY_MODEL_ID,
  ask,
  launch,
  listen,
  loadModel,
  serveModels,
  type Browser,
} from './harness';

const START_LINE =
  /^App: (http:\/\/127\.0\.0\.1:5173) {2}· {2}Training service: (http:\/\/127\.0\.0\.1:\d+) {2}· {2}Stop: Ctrl\+C$/;

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function assertPortFree(port: number) {
  await new Promise<void>((ok, fail) => {
    const probe = createServer();
    probe.once('error', () =>
      fail(
        new Error(
          `Port ${port} on 127.0.0.1 is taken: stop whatever serves it (an \`npm start\` left running?) before this test, which serves the app there exactly as \`npm start\` does.`,
        ),
      ),
    );
    probe.listen(port, '127.0.0.1', () => probe.close(() => ok()));
  });
}

/** Kills a detached child's whole process group and waits for it to go. */
async function killGroup(child: ChildProcess) {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, s);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

function waitForLine(child: ChildProcess, output: string[], pattern: RegExp, ms: number) {
  return new Promise<RegExpExecArray>((ok, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`no line matching ${pattern} in ${ms} ms:\n${output.join('')}`)),
      ms,
    );
    const check = () => {
      const lines = output.join('').split('\n');
      for (const line of lines) {
        const m = pattern.exec(line);
        if (m) {
          clearTimeout(timer);
          child.stdout?.off('data', check);
          return ok(m);
        }
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`exited (${code}) before printing ${pattern}:\n${output.join('')}`));
    });
    check();
  });
}

async function loadAndChat(browser: Browser, message: string) {
  await loadModel(browser.page, /tiny-random-llama/);
  await ask(browser.page, message);
}

/**
 * Chat online, then reload with the network off and the model server gone, and chat again.
 * Regression: under vite preview (`Vary: Origin`) the service worker's Vary-honouring lookups
 * never matched module scripts, and this reload showed a white page.
 */
async function offlineReload(browser: Browser, appUrl: string) {
  const { page } = browser;
  const models = await serveModels({ [TINY_MODEL_ID]: TINY_MODEL_DIR });
  cleanups.push(() => models.close());
  await page.goto(
    `${appUrl}?modelHost=${encodeURIComponent(models.url)}&extraModel=${TINY_MODEL_ID}&maxTokens=8`,
  );
  await loadAndChat(browser, 'Hello there');
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));

  await browser.context.setOffline(true);
  await models.close();
  await page.reload();
  await page
    .getByRole('heading', { name: 'Load local LLM models within the browser!' })
    .waitFor({ timeout: 30_000 });
  expect(await page.evaluate(() => navigator.onLine)).toBe(false);
  await loadAndChat(browser, 'Still here?');
  await browser.context.setOffline(false);
}

function launchWatched() {
  return launch({ webgpu: true }).then((browser) => {
    const pageErrors: string[] = [];
    browser.page.on('pageerror', (error) => pageErrors.push(String(error)));
    cleanups.push(() => browser.close());
    return { browser, pageErrors };
  });
}

describe('offline reload', () => {
  it('under `npm start`: one closing line with the addresses, then reload and chat offline', async () => {
    const start = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts.start;
    // `npm start` = a quiet build, then the serving command; this test runs the latter on the
    // build `npm run build` made (dist/), so it cannot drift from what users run.
    const [build, serve] = start?.split(' && ') ?? [];
    expect(build).toMatch(/^npm run --silent build\b.*--logLevel warn$/);
    expect(serve).toBeDefined();
    expect(existsSync(join(DIST, 'sw.js')), 'run `npm run build` first').toBe(true);
    await assertPortFree(5173);

    const dataDir = mkdtempSync(join(tmpdir(), 'offline-e2e-service-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const child = spawn(serve!, {
      cwd: ROOT,
      shell: true,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      // The service half on a free port (8000 may be in use on this machine); the app on 5173.
      env: { ...process.env, TRAINING_PORT: '0', TRAINING_DATA_DIR: dataDir },
    });
    cleanups.push(() => killGroup(child));
    const output: string[] = [];
    child.stdout.on('data', (d: Buffer) => output.push(d.toString()));
    child.stderr.on('data', (d: Buffer) => output.push(d.toString()));
    const [line, appAddress, serviceAddress] = await waitForLine(child, output, START_LINE, 60_000);
    // The line is the last thing printed, and printed once.
    expect(output.join('').trimEnd().split('\n').at(-1)).toBe(line);
    expect(output.join('').match(/^App: /gm)).toHaveLength(1);
    const health = await fetch(serviceAddress!);
    expect(health.status).toBeLessThan(500);
    const asset = await fetch(`${appAddress}/sw.js`, { headers: { Origin: appAddress! } });
    expect(asset.headers.get('vary')).toMatch(/Origin/); // the header that broke offline reload

    const { browser, pageErrors } = await launchWatched();
    await offlineReload(browser, `${appAddress}/`);
    expect(pageErrors).toEqual([]);
    expect(browser.foreignRequests).toEqual([]);
  });

  it('behind a server that sends Vary: Origin, Accept-Encoding; then a new version prompts Reload', async () => {
    const sw = readFileSync(join(DIST, 'sw.js'), 'utf8');
    const version = /const VERSION = '([^']+)'/.exec(sw)?.[1];
    expect(version).toBeDefined();
    let nextBuild = false;
    const app = await listen((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const file = join(DIST, path === '/' ? 'index.html' : path);
      if (!file.startsWith(DIST) || !existsSync(file) || !statSync(file).isFile()) return false;
      let body = readFileSync(file);
      // A "new build": the same files under a new service worker version.
      if (path === '/sw.js' && nextBuild)
        body = Buffer.from(sw.replace(`'${version}'`, `'${version}-next'`));
      const type = path.endsWith('.js')
        ? 'text/javascript'
        : path.endsWith('.css')
          ? 'text/css'
          : path === '/'
            ? 'text/html'
            : 'application/octet-stream';
      res.writeHead(200, {
        'Content-Type': type,
        'Content-Length': String(body.length),
        'Cache-Control': 'no-cache',
        Vary: 'Origin, Accept-Encoding',
      });
      res.end(body);
      return true;
    });
    cleanups.push(() => app.close());

    const { browser, pageErrors } = await launchWatched();
    await offlineReload(browser, app.url);
    const { page } = browser;
    // The worker installed from this server: every precached URL was fetched from it (none 404).
    const precache = JSON.parse(/const PRECACHE = (\[.*\]);/.exec(sw)?.[1] ?? '[]') as string[];
    expect(precache.length).toBeGreaterThan(5);
    for (const url of precache) expect(app.requests, url).toContain(url);

    // A new build is deployed: the waiting worker is offered, Reload switches to it.
    nextBuild = true;
    await page.evaluate(() => navigator.serviceWorker.getRegistration().then((r) => r?.update()));
    const prompt = page.getByRole('status').filter({ hasText: 'A new version is available' });
    await prompt.waitFor({ timeout: 60_000 });
    await page.evaluate(() => Object.assign(window, { beforeUpdate: true }));
    await prompt.getByRole('button', { name: 'Reload' }).click();
    await expect
      .poll(() => page.evaluate(() => 'beforeUpdate' in window).catch(() => true), {
        timeout: 30_000,
      })
      .toBe(false);
    await page
      .getByRole('heading', { name: 'Load local LLM models within the browser!' })
      .waitFor();
    const shells = await page.evaluate(() =>
      caches.keys().then((keys) => keys.filter((k) => k.startsWith('app-shell-'))),
    );
    expect(shells).toEqual([`app-shell-${version}-next`]);
    expect(await prompt.count()).toBe(0);
    expect(pageErrors).toEqual([]);
    expect(browser.foreignRequests).toEqual([]);
  });
});
