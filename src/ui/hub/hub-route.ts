/**
 * The hub's own URLs, so Back and links work inside it: `#/hub` (the task catalogue),
 * `#/hub/tasks/<id>` (one task), `#/hub/snippets`, `#/hub/gguf`.
 */
export type HubTab = 'tasks' | 'snippets' | 'gguf';

export interface HubLocation {
  tab: HubTab;
  /** The open task of the catalogue, or null for the list. */
  taskId: string | null;
}

const TABS: readonly HubTab[] = ['tasks', 'snippets', 'gguf'];

/** '/hub/tasks/text-generation' → { tab: 'tasks', taskId: 'text-generation' }; unknown → tasks. */
export function parseHubRoute(route: string): HubLocation {
  const [, , tab, id] = route.split('/');
  const known = TABS.find((t) => t === tab);
  if (!known) return { tab: 'tasks', taskId: null };
  let taskId: string | null = null;
  if (known === 'tasks' && id) {
    try {
      taskId = decodeURIComponent(id);
    } catch {
      taskId = null; // a malformed escape: the list
    }
  }
  return { tab: known, taskId };
}

/** The hash of a hub location, e.g. '#/hub/tasks/text-generation'. */
export function hubHash({ tab, taskId }: HubLocation): string {
  if (tab === 'tasks') return taskId ? `#/hub/tasks/${encodeURIComponent(taskId)}` : '#/hub';
  return `#/hub/${tab}`;
}
