import { Tabs } from './Tabs';
import { TaskCatalogue } from './TaskCatalogue';
import { ModelSnippets } from './ModelSnippets';
import { GgufPanel } from './GgufPanel';
import './hub.css';
import './hub-snippets.css';

export interface HubViewProps {
  /** Offered for transformers.js ONNX text-generation models ("Load in chat"). */
  onLoadInChat?: (modelId: string) => void;
  onClose?: () => void;
  /** The section shown first (default: the task catalogue), e.g. from a deep link. */
  initialTab?: HubTab;
}

export type HubTab = 'tasks' | 'snippets' | 'gguf';

/**
 * The model hub (route `#/hub`, loaded lazily): the task catalogue, usage snippets for any model,
 * and GGUF quantization types. Needs a QueryClientProvider above it.
 */
export default function HubView({ onLoadInChat, onClose, initialTab = 'tasks' }: HubViewProps) {
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
        initialId={initialTab}
        tabs={[
          { id: 'tasks', label: 'Tasks', content: <TaskCatalogue /> },
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
