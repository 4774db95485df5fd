import { Suspense, lazy, useEffect } from 'react';
import { AppActorContext } from './AppActorContext';
import { selectChatRef, selectGate, selectModelRef } from '../machines/appMachine';
import { useSelector } from '@xstate/react';
import { ModelPanel } from './chat/ModelPanel';
import { ChatView } from './chat/ChatView';
import { useHashRoute } from './useHashRoute';
import { preloadMarkdown } from './chat/Message';

// Loaded on demand: nothing of the hub weighs on the first page load.
const HubView = lazy(() => import('./hub/HubView'));

function Overlay() {
  return (
    <div className="overlay" role="alertdialog" aria-modal="true" aria-labelledby="overlay-text">
      <p id="overlay-text">WebGPU is not supported by this browser :(</p>
    </div>
  );
}

function Header() {
  return (
    <header className="app-header">
      <a className="brand" href="#/">
        Local LLM Studio
      </a>
      <nav aria-label="Main">
        <a href="#/">Chat</a>
        <a href="#/hub">Hub</a>
      </nav>
    </header>
  );
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

export function App() {
  const gate = AppActorContext.useSelector(selectGate);
  const route = useHashRoute();
  return (
    <div className="app">
      <Header />
      {route.startsWith('/hub') ? (
        <Suspense fallback={<p className="loading-view">Loading the hub…</p>}>
          <HubView onClose={() => (window.location.hash = '#/')} />
        </Suspense>
      ) : (
        <main className="main">
          {gate === 'checking' && <p className="status-text">Checking WebGPU support…</p>}
          {gate === 'supported' && <Session />}
          <aside className="tools" aria-label="Fine-tuning tools" />
        </main>
      )}
      <footer className="footer">Generated content may be inaccurate or false.</footer>
      {gate === 'unsupported' && <Overlay />}
    </div>
  );
}
