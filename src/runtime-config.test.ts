import { describe, expect, it } from 'vitest';
import { isLoopbackUrl, readRuntimeConfig } from './runtime-config';
import { DEFAULT_MODEL_HOST, MODELS } from './shared/models';

describe('readRuntimeConfig', () => {
  it("defaults: the Hub, the app's models", () => {
    const c = readRuntimeConfig({ search: '' });
    expect(c).toEqual({
      models: MODELS,
      modelHost: DEFAULT_MODEL_HOST,
      maxNewTokens: undefined,
      inspect: false,
      debug: false,
      replyStallMs: undefined,
    });
    expect(c.models).toHaveLength(MODELS.length);
  });
  it('a loopback model host and an extra model are accepted', () => {
    const c = readRuntimeConfig({
      search: '?modelHost=http://127.0.0.1:9999/&extraModel=local/tiny&maxTokens=32',
    });
    expect(c.modelHost).toBe('http://127.0.0.1:9999/');
    expect(c.models.at(-1)).toMatchObject({ id: 'local/tiny', dtype: 'fp32' });
    expect(c.maxNewTokens).toBe(32);
  });
  it('extraModel takes several ids separated by commas; bad and repeated ids are dropped', () => {
    const c = readRuntimeConfig({
      search: '?modelHost=http://127.0.0.1:9999/&extraModel=local/one,local/two,,bad id,local/one',
    });
    expect(c.models.slice(MODELS.length).map((m) => m.id)).toEqual(['local/one', 'local/two']);
  });
  it('a foreign model host is ignored, and so is the extra model', () => {
    const c = readRuntimeConfig({ search: '?modelHost=https://evil.example/&extraModel=a/b' });
    expect(c.modelHost).toBe(DEFAULT_MODEL_HOST);
    expect(c.models).toHaveLength(MODELS.length);
  });
  it('an extra model whose id breaks the Hub rule is ignored', () => {
    // Broke before: the own rule let `../x`, `a--b/c` and `owner/name.` through.
    for (const id of ['../x', 'a--b/c', 'owner/name.', 'tiny', 'a/b/c', `o/${'n'.repeat(97)}`]) {
      const search = `?modelHost=http://127.0.0.1:9999/&extraModel=${encodeURIComponent(id)}`;
      expect(readRuntimeConfig({ search }).models, id).toHaveLength(MODELS.length);
    }
  });
  it('bad maxTokens is ignored (features keep their defaults)', () => {
    for (const v of ['0', '-5', 'abc', '99999', '1.5']) {
      expect(readRuntimeConfig({ search: `?maxTokens=${v}` }).maxNewTokens).toBeUndefined();
    }
  });
  it('?inspect opens the inspector, ?inspect=stately selects Stately', () => {
    expect(readRuntimeConfig({ search: '?inspect' }).inspect).toBe(true);
    expect(readRuntimeConfig({ search: '?inspect=stately' }).inspect).toBe('stately');
  });
  it('isLoopbackUrl', () => {
    expect(isLoopbackUrl('http://localhost:1/')).toBe(true);
    expect(isLoopbackUrl('javascript:alert(1)')).toBe(false);
    expect(isLoopbackUrl('http://127.0.0.1.evil.com/')).toBe(false);
  });

  it('?stallSeconds=N (1–600) shortens the reply stall delay; bad values keep the default', () => {
    expect(readRuntimeConfig({ search: '?stallSeconds=5' }).replyStallMs).toBe(5000);
    for (const bad of ['0', '601', '2.5', 'x', '-3']) {
      expect(readRuntimeConfig({ search: `?stallSeconds=${bad}` }).replyStallMs).toBeUndefined();
    }
    expect(readRuntimeConfig({ search: '?debug' }).debug).toBe(true);
    expect(readRuntimeConfig({ search: '' }).debug).toBe(false);
  });
});
