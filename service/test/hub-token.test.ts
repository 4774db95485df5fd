/**
 * The Hub token a start request carries (`hub_token`): it reaches the trainer as HF_TOKEN (over
 * the service's own), and nothing the service keeps or answers holds it: not the run record, not
 * the log (a trainer that prints it is redacted, open lines too), not a GET answer, not an error.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LogsResponse } from '../../src/shared/training-api';
import { serviceForFile, sleep, startRun, type TestService } from './helpers';

const TOKEN = 'hf_panelToken_4f2a9c';
let svc: TestService;
serviceForFile((s) => (svc = s));

/** Every file under `dir`, read whole. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile());
}

describe('hub_token in POST /train', () => {
  it('reaches the trainer as HF_TOKEN over the service own, and is written or answered nowhere', async () => {
    const id = await startRun(
      svc,
      'print-token.mjs',
      { hub_token: TOKEN },
      { HF_TOKEN: 'hf_service_own_token' },
    );
    expect(svc.spawned.at(-1)?.env?.HF_TOKEN).toBe(TOKEN);
    // The open (unterminated) line is shown while the run goes: redacted too.
    let open: string | undefined;
    for (let i = 0; i < 200 && !open; i++) {
      const tail = await svc.request({ path: `/logs/${id}?tail=10` });
      open = (tail.json as LogsResponse).lines.find((l) => l.startsWith('open line'));
      if (!open) await sleep(10);
    }
    expect(open).toBe('open line [hub token]');
    const ended = await svc.waitForEnd(id);
    expect(ended.state).toBe('succeeded');
    const log = (await svc.request({ path: `/logs/${id}?offset=0&limit=100` }))
      .json as LogsResponse;
    expect(log.lines).toEqual(
      expect.arrayContaining([
        'token [hub token]',
        'Authorization: Bearer [hub token]; retrying',
        'open line [hub token]',
      ]),
    );
    const answers = await Promise.all(
      [`/runs/${id}`, '/runs', `/logs/${id}?tail=100`, '/models'].map(
        async (path) => (await svc.request({ path })).text,
      ),
    );
    for (const text of answers) expect(text).not.toContain(TOKEN);
    const written = filesUnder(svc.config.dataDir);
    expect(written.some((f) => f.endsWith('run.json'))).toBe(true);
    for (const file of written)
      expect(readFileSync(file).includes(Buffer.from(TOKEN)), file).toBe(false);
  });

  it('without one, the trainer gets the service environment HF_TOKEN', async () => {
    const id = await startRun(svc, 'args.mjs', {}, { HF_TOKEN: 'hf_service_own_token' });
    await svc.waitForEnd(id);
    expect(svc.spawned.at(-1)?.env?.HF_TOKEN).toBe('hf_service_own_token');
  });

  it.each([
    ['not a token', 'must be a Hub access token: hf_ followed by letters'],
    ['hf_' + 'x'.repeat(300), 'must be at most 256 characters'],
    ['hf_abc def', 'must be a Hub access token'],
    [42, 'must be a string (a Hub access token, hf_…)'],
  ])('refuses %j with a message naming the field, never echoing it', async (token, says) => {
    const reply = await svc.train({ hub_token: token });
    expect(reply.status).toBe(400);
    const error = (reply.json as { error: string }).error;
    expect(error).toContain(`hub_token ${says}`);
    if (typeof token === 'string') expect(error).not.toContain(token);
  });
});
