import { describe, expect, it } from 'vitest';
import { hubHash, parseHubRoute } from './hub-route';

describe('hub routes', () => {
  it.each([
    ['/hub', { tab: 'tasks', taskId: null }, '#/hub'],
    [
      '/hub/tasks/text-generation',
      { tab: 'tasks', taskId: 'text-generation' },
      '#/hub/tasks/text-generation',
    ],
    ['/hub/snippets', { tab: 'snippets', taskId: null }, '#/hub/snippets'],
    ['/hub/gguf', { tab: 'gguf', taskId: null }, '#/hub/gguf'],
  ] as const)('%s ⇄ %j', (route, location, hash) => {
    expect(parseHubRoute(route)).toEqual(location);
    expect(hubHash(location)).toBe(hash);
  });

  it('unknown tabs and malformed escapes fall back to the catalogue list', () => {
    expect(parseHubRoute('/hub/nope')).toEqual({ tab: 'tasks', taskId: null });
    expect(parseHubRoute('/hub/tasks/%E0%A4%A')).toEqual({ tab: 'tasks', taskId: null });
    expect(parseHubRoute('/hub/snippets/extra')).toEqual({ tab: 'snippets', taskId: null });
  });
});
