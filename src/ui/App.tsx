import { Suspense, lazy, useEffect, useMemo, useState } from 'react';
import { lazyWithQuery } from './lazy-with-query';
import { AppActorContext } from './AppActorContext';
import {
  selectChatRef,
  selectConversationsRef,
  selectGate,
  selectModelRef,
  selectStoredModelsRef,
} from '../machines/appSelectors';
import { selectHasMessages, selectIsGenerating } from '../machines/chatSelectors';
import { selectIsModelReady } from '../machines/modelSelectors';
import { useSelector } from '@xstate/react';
import { ModelPanel } from './chat/ModelPanel';
import { ChatView } from './chat/ChatView';
import { useHashRoute } from './useHashRoute';
import { preloadMarkdown } from './chat/Message';
import { useServices, type GenerateLocal } from './services';
import { baseModelSuggestions, trainedModelOption } from '../shared/models';
import type { TrainedModel } from '../shared/training-api';

// Loaded on demand: nothing of the hub or the inspector weighs on the first page load.
// The hub reads the Hub API through TanStack Query: it and the app's client come with the hub.
const HubView = lazyWithQuery(() => import('./hub/HubView'));
// Compare (base vs fine-tuned, scored): its machine, store and table load with the route.
const CompareView = lazyWithQuery(() => import('./compare/CompareView'));
const InspectorPanel = lazy(() => import('./inspector/InspectorPanel'));
// The dataset and training panels arrive as a chunk of their own, right after the first paint.
const Tools = lazy(() => import('./Tools'));
// Conversations, settings and stored models: one chunk, fetched after the first paint.
const ConversationsPanel = lazy(() =>
  import('./conversations/ConversationsPanel').then((m) => ({ default: m.ConversationsPanel })),
);
const SettingsPanel = lazy(() =>
  import('./settings/SettingsPanel').then((m) => ({ default: m.SettingsPanel })),
);
const StoredModelsDialog = lazy(() =>
  import('./storage/StoredModelsDialog').then((m) => ({ default: m.StoredModelsDialog })),
);
// Only a browser without WebGPU needs this notice: it stays out of the first-load bundle.
const WebGpuMissing = lazy(() => import('./WebGpuMissing'));

/** Moves focus to the page's content without touching the hash (the hash is the route). */
function SkipLink() {
  return (
    <a
      className="skip-link"
      href="#content"
      onClick={(event) => {
        event.preventDefault();
        document.getElementById('content')?.focus();
      }}
    >
      Skip to content
    </a>
  );
}

function Header({
  route,
  inspecting,
  onToggleInspector,
}: {
  route: string;
  inspecting: boolean;
  onToggleInspector: () => void;
}) {
  const onHub = route.startsWith('/hub');
  const onCompare = route.startsWith('/compare');
  return (
    <header className="app-header">
      <SkipLink />
      <a className="brand" href="#/">
        <span className="brand-long">Local </span>LLM Studio
      </a>
      {import.meta.env.MODE === 'mock' && (
        <span
          className="mock-badge"
          title="Training service, hosted chat and Hub API are simulated in this browser"
        >
          Mock mode
        </span>
      )}
      <nav aria-label="Main">
        <a href="#/" aria-current={onHub || onCompare ? undefined : 'page'}>
          Chat
        </a>
        <a href="#/hub" aria-current={onHub ? 'page' : undefined}>
          Hub
        </a>
        <a href="#/compare" aria-current={onCompare ? 'page' : undefined}>
          Compare
        </a>
        <button
          type="button"
          className="link-button"
          aria-pressed={inspecting}
          aria-label={inspecting ? 'Close inspector' : 'Inspect state machines'}
          onClick={onToggleInspector}
        >
          {/* On a phone it says only "Close" / "Inspect" (.nav-long); the name stays whole. */}
          {inspecting ? 'Close' : 'Inspect'}
          <span className="nav-long">{inspecting ? ' inspector' : ' state machines'}</span>
        </button>
      </nav>
    </header>
  );
}

function ToolsSlot() {
  const app = AppActorContext.useActorRef();
  const model = AppActorContext.useSelector(selectModelRef);
  const { localGenerator } = useServices();
  const generateLocal = useMemo(() => localGenerator(app), [localGenerator, app]);
  return (
    <Suspense fallback={<p className="status-text">Loading the fine-tuning tools…</p>}>
      <ToolsWithModel model={model} generateLocal={generateLocal} />
    </Suspense>
  );
}

function ToolsWithModel({
  model,
  generateLocal,
}: {
  model: ReturnType<typeof selectModelRef>;
  generateLocal: GenerateLocal;
}) {
  if (!model) return <Tools localModelReady={false} generateLocal={generateLocal} />;
  return <ToolsReady model={model} generateLocal={generateLocal} />;
}

/** Trained models (GET /models on the training service) join the picker; "Load in chat" loads one. */
function useTrainedModelHandlers(model: NonNullable<ReturnType<typeof selectModelRef>>) {
  return useMemo(
    () => ({
      baseModelSuggestions: baseModelSuggestions(),
      onTrainedModels: (models: readonly TrainedModel[], serviceUrl: string) => {
        for (const m of models) {
          const option = trainedModelOption(m, serviceUrl);
          model.send({ type: 'model.add', id: option.id, option, select: false });
        }
      },
      onLoadInChat: (m: TrainedModel, serviceUrl: string) => {
        const option = trainedModelOption(m, serviceUrl);
        model.send({ type: 'model.add', id: option.id, option });
        model.send({ type: 'model.load' });
      },
    }),
    [model],
  );
}

function ToolsReady({
  model,
  generateLocal,
}: {
  model: NonNullable<ReturnType<typeof selectModelRef>>;
  generateLocal: GenerateLocal;
}) {
  const ready = useSelector(model, selectIsModelReady);
  const trained = useTrainedModelHandlers(model);
  return <Tools localModelReady={ready} generateLocal={generateLocal} {...trained} />;
}

function Session() {
  const model = AppActorContext.useSelector(selectModelRef);
  const chat = AppActorContext.useSelector(selectChatRef);
  const conversations = AppActorContext.useSelector(selectConversationsRef);
  const storedModels = AppActorContext.useSelector(selectStoredModelsRef);
  if (!model || !chat) return null;
  return (
    <>
      {conversations && (
        // The placeholder keeps the list's place (styles.css), so the page does not shift.
        <Suspense fallback={<div className="conversations" aria-hidden="true" />}>
          <ConversationsPanel conversations={conversations} />
        </Suspense>
      )}
      <SessionView model={model} chat={chat} storedModels={storedModels} />
    </>
  );
}

function StoredModelsButton({
  storedModels,
}: {
  storedModels: ReturnType<typeof selectStoredModelsRef>;
}) {
  // Whether the dialog is open is UI state; what it shows lives in the stored-models machine.
  const [open, setOpen] = useState(false);
  if (!storedModels) return null;
  return (
    <>
      <button type="button" className="secondary" onClick={() => setOpen(true)}>
        Stored models
      </button>
      {open && (
        <Suspense fallback={null}>
          <StoredModelsDialog storedModels={storedModels} onClose={() => setOpen(false)} />
        </Suspense>
      )}
    </>
  );
}

function SessionView({
  model,
  chat,
  storedModels,
}: {
  model: NonNullable<ReturnType<typeof selectModelRef>>;
  chat: NonNullable<ReturnType<typeof selectChatRef>>;
  storedModels: ReturnType<typeof selectStoredModelsRef>;
}) {
  const ready = useSelector(model, selectIsModelReady);
  const generating = useSelector(chat, selectIsGenerating);
  // A saved conversation can be read before any model is loaded.
  const hasMessages = useSelector(chat, selectHasMessages);
  const [settingsOpened, setSettingsOpened] = useState(false);
  useEffect(() => {
    if (ready) preloadMarkdown();
  }, [ready]);
  return (
    <div className="chat-column">
      <ModelPanel
        model={model}
        compact={ready}
        generating={generating}
        onStopReply={() => chat.send({ type: 'chat.stop' })}
        extra={<StoredModelsButton storedModels={storedModels} />}
      />
      <details
        className="settings-panel"
        onToggle={(event) => {
          if (event.currentTarget.open) setSettingsOpened(true);
        }}
      >
        <summary>Generation settings</summary>
        {/* The form is fetched the first time the section opens, then kept. */}
        {settingsOpened && (
          <Suspense fallback={<p className="status-text">Loading the settings…</p>}>
            <SettingsPanel chat={chat} />
          </Suspense>
        )}
      </details>
      <ChatView chat={chat} showMessages={ready || hasMessages} />
    </div>
  );
}

function HubRoute({ route }: { route: string }) {
  const model = AppActorContext.useSelector(selectModelRef);
  const goHome = () => (window.location.hash = '#/');
  return (
    <HubView
      route={route}
      onNavigate={(hash) => (window.location.hash = hash)}
      onClose={goHome}
      onLoadInChat={(id) => {
        model?.send({ type: 'model.add', id });
        goHome();
      }}
    />
  );
}

function CompareRoute({ route }: { route: string }) {
  const app = AppActorContext.useActorRef();
  return <CompareView route={route} app={app} />;
}

export function App({ initialInspect = false }: { initialInspect?: boolean }) {
  const gate = AppActorContext.useSelector(selectGate);
  const route = useHashRoute();
  const [inspecting, setInspecting] = useState(initialInspect);
  return (
    <div className="app">
      <Header
        route={route}
        inspecting={inspecting}
        onToggleInspector={() => setInspecting((v) => !v)}
      />
      <div id="content" className="content" tabIndex={-1}>
        {route.startsWith('/hub') ? (
          <Suspense fallback={<p className="loading-view">Loading the hub…</p>}>
            <HubRoute route={route} />
          </Suspense>
        ) : route.startsWith('/compare') ? (
          <Suspense fallback={<p className="loading-view">Loading Compare…</p>}>
            <CompareRoute route={route} />
          </Suspense>
        ) : (
          <main className="main">
            {gate === 'checking' && <p className="status-text">Checking WebGPU support…</p>}
            {gate === 'supported' && <Session />}
            {gate === 'unsupported' && (
              <Suspense fallback={null}>
                <WebGpuMissing />
              </Suspense>
            )}
            <aside className="tools" aria-label="Fine-tuning tools">
              <ToolsSlot />
            </aside>
          </main>
        )}
      </div>
      <footer className="footer">Generated content may be inaccurate or false.</footer>
      {inspecting && (
        <Suspense fallback={<p className="status-text">Loading the inspector…</p>}>
          <InspectorPanel onClose={() => setInspecting(false)} />
        </Suspense>
      )}
    </div>
  );
}
