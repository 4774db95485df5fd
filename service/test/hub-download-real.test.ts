/**
 * A run whose base is a Hub id, with the real trainer (training/finetune.py in the project's
 * .venv) and the real huggingface_hub, against a stand-in Hub on loopback
 * (training/stand_in_hub.py, reached through HF_ENDPOINT): the download (of the tag the request's
 * base_revision names) comes first with its progress lines, which never move the run's step count; a gated id fails at once with what to
 * do, a wrong token with the Hub's 401; the token the start request carries reaches the Hub and no
 * file the service or the trainer wrote, nor any answer; the service's Hub cache lists what was
 * downloaded and removes it (not while a run uses it); a second run asked for while one downloads
 * is refused (the service runs one at a time: no second download of the same base); a base larger
 * than the free space of the cache's disk (a small tmpfs mounted for the test) fails before any
 * byte is fetched, with both figures. Skipped without the trainer's packages.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubCache, LogsResponse, RunInfo } from '../../src/shared/training-api';
import { trainingMessages } from '../../src/shared/training-messages';
import { downloadLine } from '../../src/shared/training-progress';
import { failureCause } from '../../src/ui/training/failure-cause';
import {
  FIXTURES,
  ROOT,
  VENV_PYTHON,
  expectHeldByRun,
  removeCached,
  startRun,
  startTestService,
  venvHasTrainer,
  withEnv,
  type TestService,
} from './helpers';

const hasTorch = venvHasTrainer(180_000);
const TOKEN = 'hf_service_test_7d3e91';

let svc: TestService;
let hub: ChildProcess | undefined;
let endpoint = '';
let tmp = '';

beforeAll(async () => {
  if (!hasTorch) return;
  tmp = mkdtempSync(join(tmpdir(), 'hub-download-real-'));
  const model = join(tmp, 'llama');
  const made = spawnSync(
    VENV_PYTHON,
    ['-c', `import tiny_models; tiny_models.make_tiny_model("llama", ${JSON.stringify(model)})`],
    { cwd: join(ROOT, 'training'), encoding: 'utf8', env: { ...process.env, HF_HUB_OFFLINE: '1' } },
  );
  expect(made.status, made.stderr).toBe(0);
  hub = spawn(
    VENV_PYTHON,
    [
      join(ROOT, 'training', 'stand_in_hub.py'),
      '--model',
      `org/tiny=${model}`,
      '--model',
      `org/gated=${model}`,
      '--model',
      `org/gated2=${model}`,
      '--gated',
      'org/gated',
      '--gated',
      'org/gated2',
      '--token',
      `${TOKEN}=org/gated`,
      '--ref',
      `org/gated@v1=${model}`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const stdout = hub.stdout;
  if (!stdout) throw new Error('the stand-in Hub has no stdout');
  const port = await new Promise<string>((ok, fail) => {
    const lines = createInterface({ input: stdout });
    lines.once('line', (line) => ok(line.replace(/^port /, '')));
    hub?.once('exit', (code) => fail(new Error(`the stand-in Hub exited (${code})`)));
  });
  endpoint = `http://127.0.0.1:${port}`;
  svc = await startTestService({
    python: VENV_PYTHON,
    killGraceMs: 5000,
    hubCacheDir: join(tmp, 'cache'),
  });
  writeFileSync(
    svc.dataFile,
    JSON.stringify([{ prompt: 'Where is the harbour?', completion: 'By the mill.' }]),
  );
}, 120_000);

afterAll(async () => {
  hub?.kill();
  await svc?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

async function lines(id: string, service = svc) {
  const reply = await service.request({ path: `/logs/${id}?offset=0&limit=1000` });
  return (reply.json as LogsResponse).lines;
}

/** A run of the trainer on `body` (with `runEnv`) that fails before training: its end and log. */
async function runThatFails(
  body: Record<string, unknown>,
  runEnv: Record<string, string>,
  service = svc,
) {
  const id = await startRun(service, 'finetune-no-export.py', { ...tiny, ...body }, runEnv);
  const ended = await service.waitForEnd(id, 120_000);
  const log = await lines(id, service);
  expect(ended.state, log.join('\n')).toBe('failed');
  expect(ended.current ?? 0).toBe(0);
  return log;
}

/** Every file under `dir`, read whole. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile());
}

// The service's own HF_TOKEN is one the Hub refuses: a request's hub_token must win over it.
const env = () => ({ HF_ENDPOINT: endpoint, HF_HUB_OFFLINE: '', HF_TOKEN: 'hf_refused_0000' });
const tiny = { max_len: 64, repeat: 1, max_steps: 2, eval_fraction: 0 };

describe.skipIf(!hasTorch)('a Hub base with training/finetune.py and a stand-in Hub', () => {
  it('downloads first with progress lines that are not steps, then trains; the token is written nowhere', async () => {
    const id = await startRun(
      svc,
      'finetune-no-export.py',
      { base_model: 'org/gated', ...tiny, hub_token: TOKEN, base_revision: 'v1' },
      env(),
    );
    // Another run of the same base meanwhile is refused, not queued: one download at a time.
    const second = await withEnv(env(), () =>
      svc.train({
        script_path: join(FIXTURES, 'finetune-no-export.py'),
        base_model: 'org/gated',
        ...tiny,
      }),
    );
    expect(second.status, second.text).toBe(409);
    const running = (await svc.request({ path: `/runs/${id}` })).json as RunInfo;
    expect(second.text).toContain(trainingMessages.runActive(id, running.started_at));
    const ended = await svc.waitForEnd(id, 240_000);
    const log = await lines(id);
    expect(ended, log.join('\n')).toMatchObject({ state: 'succeeded', current: 2, total: 2 });
    // The tag asked for, at the commit the stand-in gives it (stand_in_hub.py: sha1 of id@ref).
    const commit = createHash('sha1').update('org/gated@v1').digest('hex');
    const at = new RegExp(`^base model org/gated at v1 \\(${commit.slice(0, 12)}\\)`);
    expect(
      log.filter((line) => at.test(line)),
      log.join('\n'),
    ).toHaveLength(1);
    const downloads = log.map(downloadLine).filter((d) => d !== null);
    expect(downloads.length).toBeGreaterThan(1);
    expect(downloads.at(-1)).toMatchObject({ files: 6, filesDone: 6 });
    const firstStep = log.findIndex((l) => /^step \d+\/2$/.test(l));
    const lastDownload = log.findLastIndex((l) => downloadLine(l) !== null);
    expect(lastDownload).toBeLessThan(firstStep);
    // The token reached the service's child through its environment only.
    const written = [...filesUnder(svc.config.dataDir), ...filesUnder(join(tmp, 'cache'))];
    expect(written.length).toBeGreaterThan(5);
    for (const file of written)
      expect(readFileSync(file).includes(Buffer.from(TOKEN)), file).toBe(false);
    for (const path of [`/runs/${id}`, '/runs', `/logs/${id}?offset=0&limit=1000`, '/hub-cache'])
      expect((await svc.request({ path })).text, path).not.toContain(TOKEN);
  }, 300_000);

  it('GET /hub-cache lists the downloaded base; DELETE removes it, refused while a run uses it', async () => {
    const files = readdirSync(join(tmp, 'llama'));
    const listed = (await svc.request({ path: '/hub-cache' })).json as HubCache;
    expect(listed.dir).toBe(join(tmp, 'cache'));
    const gated = listed.models.find((m) => m.id === 'org/gated');
    expect(gated).toMatchObject({ revisions: 1, inUse: false });
    // What the download chose of the model's files (all but what a causal LM does not read).
    const sizes = files.map((f) => statSync(join(tmp, 'llama', f)).size);
    expect(gated?.bytes).toBeGreaterThan(Math.max(...sizes));
    expect(gated?.bytes).toBeLessThanOrEqual(sizes.reduce((a, b) => a + b, 0));
    expect(listed.bytes).toBe(listed.models.reduce((sum, m) => sum + m.bytes, 0));

    const remove = () => removeCached(svc, 'org/gated');
    await expectHeldByRun(svc, 'org/gated');
    const removed = await remove();
    expect(removed.status, removed.text).toBe(200);
    expect((removed.json as HubCache).models.map((m) => m.id)).not.toContain('org/gated');
    expect(existsSync(join(tmp, 'cache', 'models--org--gated'))).toBe(false);
    expect((await remove()).status).toBe(404);
  }, 60_000);

  it('a gated id without a token fails at once, saying where to accept the licence and how to give a token', async () => {
    const log = await runThatFails({ base_model: 'org/gated2' }, { ...env(), HF_TOKEN: '' });
    expect(log.join('\n')).toContain(
      `error: org/gated2 is a gated model: accept its licence at ${endpoint}/org/gated2 (signed in), then give the trainer a Hub token`,
    );
  }, 180_000);

  it('a base larger than the free space of the cache disk fails before the download, with both figures', async (ctx) => {
    // The cache on a real small disk: a 64 kB tmpfs (mounting needs root; skipped otherwise).
    const disk = join(tmp, 'small-disk');
    mkdirSync(disk);
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', disk]);
    if (mounted.status !== 0) ctx.skip();
    const small = await startTestService({
      python: VENV_PYTHON,
      killGraceMs: 5000,
      hubCacheDir: join(disk, 'hub'),
    }).catch((error: unknown) => {
      spawnSync('umount', [disk]);
      throw error;
    });
    try {
      writeFileSync(small.dataFile, readFileSync(svc.dataFile));
      const log = await runThatFails({ base_model: 'org/tiny' }, { ...env(), HF_TOKEN: '' }, small);
      // What the panel shows as the failed run's cause.
      expect(failureCause(log)).toMatch(
        new RegExp(
          `^the base model needs [\\d.]+ (kB|MB) more in ${join(disk, 'hub')}, which has [\\d.]+ (B|kB) free: free some space`,
        ),
      );
      expect(log.filter((l) => downloadLine(l) !== null)).toEqual([]);
      expect(filesUnder(join(disk, 'hub')).filter((f) => f.includes('/blobs/'))).toEqual([]);
    } finally {
      await small.close();
      spawnSync('umount', [disk]);
    }
  }, 180_000);

  it("a wrong token in the request fails with the Hub's 401 and its message, the token redacted", async () => {
    const wrong = 'hf_not_a_known_token_5c1';
    const log = (await runThatFails({ base_model: 'org/gated2', hub_token: wrong }, env())).join(
      '\n',
    );
    expect(log).toContain(
      `error: the Hub at ${endpoint} refused the token (Invalid credentials in Authorization header)`,
    );
    expect(log).not.toContain(wrong);
  }, 180_000);
});
