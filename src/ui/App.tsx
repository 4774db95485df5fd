import { Suspense, lazy, useEffect, useMemo, useState } from 'react';
import { AppActorContext } from './AppActorContext';
import { selectChatRef, selectGate, selectModelRef } from '../machines/appMachine';
import { useSelector } from '@xstate/react';
import { ModelPanel } from './chat/ModelPanel';
import { ChatView } from './chat/ChatView';
import { useHashRoute } from './useHashRoute';
import { preloadMarkdown } from './chat/Message';
import { useServices, type GenerateLocal } from './services';

// Loaded on demand: nothing of the hub or the inspector weighs on the first page load.
const HubView = lazy(() => import('./hub/HubView'));
const InspectorPanel = lazy(() => import('./inspector/InspectorPanel'));
// The dataset and training panels arrive as a chunk of their own, right after the first paint.
const Tools = lazy(() => import('./Tools'));

function Overlay() {
  return (
    <div className="overlay" role="alertdialog" aria-modal="true" aria-labelledby="overlay-text">
      <p id="overlay-text">WebGPU is not supported by this browser :(</p>
    </div>
  );
}

function Header({
  inspecting,
  onToggleInspector,
}: {
  inspecting: boolean;
  onToggleInspector: () => void;
}) {
  return (
    <header className="app-header">
      <a className="brand" href="#/">
        Local LLM Studio
      </a>
      <nav aria-label="Main">
        <a href="#/">Chat</a>
        <a href="#/hub">Hub</a>
        <button
          type="button"
          className="link-button"
          aria-pressed={inspecting}
          onClick={onToggleInspector}
        >
          {inspecting ? 'Close inspector' : 'Inspect state machines'}
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

function ToolsReady({
  model,
  generateLocal,
}: {
  model: NonNullable<ReturnType<typeof selectModelRef>>;
  generateLocal: GenerateLocal;
}) {
  const ready = useSelector(model, (s) => s.matches('ready'));
  return <Tools localModelReady={ready} generateLocal={generateLocal} />;
}

function Session() {
  const model = AppActorContext.useSelector(selectModelRef);
  const chat = AppActorContext.useSelector(selectChatRef);
  if (!model || !chat) return null;
  return <SessionView model={model} chat={chat} />;
}

function SessionView({
  model,
  chat,
}: {
  model: NonNullable<ReturnType<typeof selectModelRef>>;
  chat: NonNullable<ReturnType<typeof selectChatRef>>;
}) {
  const ready = useSelector(model, (s) => s.matches('ready'));
  useEffect(() => {
    if (ready) preloadMarkdown();
  }, [ready]);
  return (
    <div className="chat-column">
      {!ready && <ModelPanel model={model} />}
      <ChatView chat={chat} showMessages={ready} />
    </div>
  );
}

function HubRoute() {
  const model = AppActorContext.useSelector(selectModelRef);
  const goHome = () => (window.location.hash = '#/');
  return (
    <HubView
      onClose={goHome}
      onLoadInChat={(id) => {
        model?.send({ type: 'model.add', id });
        goHome();
      }}
    />
  );
}

export function App({ initialInspect = false }: { initialInspect?: boolean }) {
  const gate = AppActorContext.useSelector(selectGate);
  const route = useHashRoute();
  const [inspecting, setInspecting] = useState(initialInspect);
  return (
    <div className="app">
      <Header inspecting={inspecting} onToggleInspector={() => setInspecting((v) => !v)} />
      {route.startsWith('/hub') ? (
        <Suspense fallback={<p className="loading-view">Loading the hub…</p>}>
          <HubRoute />
        </Suspense>
      ) : (
        <main className="main">
          {gate === 'checking' && <p className="status-text">Checking WebGPU support…</p>}
          {gate === 'supported' && <Session />}
          <aside className="tools" aria-label="Fine-tuning tools">
            <ToolsSlot />
          </aside>
        </main>
      )}
      <footer className="footer">Generated content may be inaccurate or false.</footer>
      {gate === 'unsupported' && <Overlay />}
      {inspecting && (
        <Suspense fallback={<p className="status-text">Loading the inspector…</p>}>
          <InspectorPanel onClose={() => setInspecting(false)} />
        </Suspense>
      )}
    </div>
  );
}
