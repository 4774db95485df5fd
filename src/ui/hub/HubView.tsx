import { Tabs } from './Tabs';
import { TaskCatalogue } from './TaskCatalogue';
import { ModelSnippets } from './ModelSnippets';
import { GgufPanel } from './GgufPanel';
import { useState } from 'react';
import { hubHash, parseHubRoute, type HubLocation, type HubTab } from './hub-route';
import './hub.css';
import './hub-snippets.css';

export interface HubViewProps {
  /** Offered for transformers.js ONNX text-generation models ("Load in chat"). */
  onLoadInChat?: (modelId: string) => void;
  onClose?: () => void;
  /** The section shown first (default: the task catalogue) when `location` is not given. */
  initialTab?: HubTab;
  /** The hash route ('/hub/tasks/<id>', '/hub/snippets', …); with `onNavigate` the hub follows it. */
  route?: string;
  /** Called with the hash of another place in the hub (a new URL, so Back works). */
  onNavigate?: (hash: string) => void;
}

export type { HubTab };

/**
 * The model hub (route `#/hub`, loaded lazily): the task catalogue, usage snippets for any model,
 * and GGUF quantization types. Needs a QueryClientProvider above it.
 */
export default function HubView({
  onLoadInChat,
  onClose,
  initialTab = 'tasks',
  route,
  onNavigate,
}: HubViewProps) {
  // Without a URL to follow (tests, embedding), the hub keeps its place itself.
  const [own, setOwn] = useState<HubLocation>({ tab: initialTab, taskId: null });
  const here = route !== undefined && onNavigate ? parseHubRoute(route) : own;
  const go = (to: HubLocation) => (onNavigate ? onNavigate(hubHash(to)) : setOwn(to));
  return (
    <section className="hub" aria-labelledby="hub-title">
      <header className="hub-header">
        <h1 id="hub-title">Model hub</h1>
        {onClose && (
          <button type="button" onClick={onClose}>
            Close the hub
          </button>
        )}
      </header>
      <p className="hub-muted">
        The Hugging Face task catalogue and usage snippets for any model, generated in the browser.
      </p>
      <Tabs
        label="Hub sections"
        selectedId={here.tab}
        onSelect={(tab) => go({ tab, taskId: null })}
        tabs={[
          {
            id: 'tasks',
            label: 'Tasks',
            content: (
              <TaskCatalogue
                openTaskId={here.taskId}
                onOpenTask={(taskId) => go({ tab: 'tasks', taskId })}
              />
            ),
          },
          {
            id: 'snippets',
            label: 'Model snippets',
            content: <ModelSnippets onLoadInChat={onLoadInChat} />,
          },
          { id: 'gguf', label: 'GGUF', content: <GgufPanel /> },
        ]}
      />
    </section>
  );
}
