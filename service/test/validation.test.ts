/** Bad input: each gets a clear 400/404 and nothing is spawned (issue: Bad input). */
import { symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, startTestService, tempDir, type TestService } from './helpers';

let svc: TestService;
let linkRoot: string;
beforeAll(async () => {
  // A second script root holding links: one escaping to a file outside, one staying inside.
  linkRoot = tempDir('training-links-');
  svc = await startTestService({ scriptRoots: [FIXTURES, linkRoot] });
  const outsideScript = join(svc.outside, 'evil.mjs');
  writeFileSync(outsideScript, 'console.log("escaped")');
  symlinkSync(outsideScript, join(linkRoot, 'escape.mjs'));
  symlinkSync(join(FIXTURES, 'args.mjs'), join(linkRoot, 'inside.mjs'));
  symlinkSync(svc.outside, join(svc.config.outputRoots[0] ?? '', 'escape-dir'));
  const executable = join(linkRoot, 'no-extension');
  writeFileSync(executable, 'plain text');
  chmodSync(executable, 0o644);
});
afterAll(() => svc.close());
afterEach(() => {
  expect(svc.spawned, 'nothing may be spawned for bad input').toEqual([]);
});

const error = (json: unknown) => (json as { error: string }).error;

describe('POST /train body', () => {
  it('malformed JSON → 400', async () => {
    const reply = await svc.request({
      method: 'POST',
      path: '/train',
      headers: { 'content-type': 'application/json' },
      body: '{"script_path": ',
    });
    expect(reply.status).toBe(400);
    expect(error(reply.json)).toMatch(/^Malformed JSON body/);
  });

  it('empty JSON body → 400', async () => {
    const reply = await svc.request({
      method: 'POST',
      path: '/train',
      headers: { 'content-type': 'application/json' },
      body: '',
    });
    expect(reply.status).toBe(400);
    expect(error(reply.json)).toMatch(/^Malformed JSON body/);
  });

  it.each([
    ['a missing field', { script_path: undefined }, 'Invalid body: script_path is required'],
    ['a mistyped field', { max_len: '256' }, 'Invalid body: max_len must be an integer'],
    ['a negative max_steps', { max_steps: -5 }, 'max_steps must be greater than 0'],
    ['a fractional max_steps', { max_steps: 1.5 }, 'max_steps must be an integer'],
    ['a non-numeric lr', { lr: 'fast' }, 'lr must be a number'],
    ['a negative lr', { lr: -0.1 }, 'lr must be greater than 0'],
    ['an lr above 1', { lr: 3 }, 'lr must be at most 1'],
    ['max_len 0', { max_len: 0 }, 'max_len must be greater than 0'],
    ['a negative repeat', { repeat: -1 }, 'repeat must be greater than 0'],
    ['an unknown field', { shell: true }, 'body has unknown field: shell'],
    [
      'a base_model beginning with --',
      { base_model: '--help' },
      'base_model must not begin with "--"',
    ],
    [
      'an output_dir beginning with --',
      { output_dir: '--output_dir=/' },
      'output_dir must not begin with "--"',
    ],
    [
      'a control character',
      { base_model: 'a\nb' },
      'base_model must not contain control characters',
    ],
    ['an empty script_path', { script_path: '' }, 'script_path must not be empty'],
  ])('%s → 400', async (_name, patch, message) => {
    const reply = await svc.train(patch);
    expect(reply.status).toBe(400);
    expect(error(reply.json)).toContain(message);
  });

  it('an array instead of an object → 400', async () => {
    const reply = await svc.request({
      method: 'POST',
      path: '/train',
      headers: { 'content-type': 'application/json' },
      body: '[1,2]',
    });
    expect(reply.status).toBe(400);
    expect(error(reply.json)).toMatch(/^Invalid body: body must be an object/);
  });
});

describe('paths confined to their roots', () => {
  it.each([
    [
      'script_path outside the roots',
      { script_path: '/etc/hostname' },
      'script_path "/etc/hostname" is outside the allowed folders',
    ],
    [
      'script_path with ../ traversal',
      { script_path: join(FIXTURES, '..', 'helpers.ts') },
      'is outside the allowed folders',
    ],
    ['a non-existent script', { script_path: join(FIXTURES, 'nope.mjs') }, 'does not exist'],
    ['a script folder', { script_path: FIXTURES }, 'is not a file'],
    [
      'a file neither script nor executable',
      { script_path: join(FIXTURES, 'notes.txt') },
      'is neither a .py/.js/.mjs script nor an executable file',
    ],
    [
      'data_file outside the roots',
      { data_file: '/etc/passwd' },
      'data_file "/etc/passwd" is outside the allowed folders',
    ],
    [
      'data_file with ../ traversal',
      { data_file: 'data/../outside/x.json' },
      'is outside the allowed folders',
    ],
    [
      'a missing data_file',
      { data_file: 'data/missing.json' },
      'data_file "data/missing.json" does not exist',
    ],
    [
      'output_dir outside the roots',
      { output_dir: '/tmp/lora' },
      'output_dir "/tmp/lora" is outside the allowed folders',
    ],
  ])('%s → 400', async (_name, patch, message) => {
    const reply = await svc.train(patch);
    expect(reply.status).toBe(400);
    expect(error(reply.json)).toContain(message);
  });

  it('a symlink escaping the script root → 400', async () => {
    const reply = await svc.train({ script_path: join(linkRoot, 'escape.mjs') });
    expect(reply.status).toBe(400);
    expect(error(reply.json)).toMatch(
      /resolves \(through a symbolic link\) to .*evil\.mjs, outside/,
    );
  });

  it('an executable-less file without a known extension → 400', async () => {
    const reply = await svc.train({ script_path: join(linkRoot, 'no-extension') });
    expect(reply.status).toBe(400);
    expect(error(reply.json)).toMatch(/neither a \.py\/\.js\/\.mjs script nor an executable/);
  });

  it('an output_dir through a symlink escaping the output root → 400', async () => {
    const reply = await svc.train({ output_dir: 'out/escape-dir/lora' });
    expect(reply.status).toBe(400);
    expect(error(reply.json)).toMatch(/output_dir .* resolves \(through a symbolic link\) outside/);
  });
});

describe('run ids and tail', () => {
  it('unknown run id → 404 on logs, runs and cancel', async () => {
    for (const [method, path] of [
      ['GET', '/logs/abc?tail=10'],
      ['GET', '/runs/abc'],
      ['POST', '/runs/abc/cancel'],
    ] as const) {
      const reply = await svc.request({
        method,
        path,
        headers: { 'content-type': 'application/json' },
        body: method === 'POST' ? '{}' : undefined,
      });
      expect(reply.status, path).toBe(404);
      expect(error(reply.json)).toBe('No run with id "abc"');
    }
  });

  it('a malformed run id → 400', async () => {
    const reply = await svc.request({ path: '/runs/..%2F..%2Fetc' });
    expect(reply.status).toBe(400);
    expect(error(reply.json)).toBe('Invalid path: id is not a valid run id');
  });

  it.each([
    ['0', 'tail must be at least 1'],
    ['-3', 'tail must be at least 1'],
    ['100000000', 'tail must be at most 1,000'],
    ['abc', 'tail must be an integer'],
    ['1e3', 'tail must be an integer'],
    ['', 'tail must be an integer'],
  ])('tail=%s → 400', async (tail, message) => {
    const reply = await svc.request({ path: `/logs/abc?tail=${tail}` });
    expect(reply.status).toBe(400);
    expect(error(reply.json)).toBe(`Invalid query: ${message}`);
  });
});
