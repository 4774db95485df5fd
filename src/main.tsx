/**
 * Starts the app: mock mode, the inspector, and the real implementations built by the composition
 * root (src/composition.ts) handed to React (the app actor's logic and the panels' services).
 */
import { StrictMode, Suspense, lazy } from 'react';
import { createRoot } from 'react-dom/client';
import { createAppLogic, createServices } from './composition';
import { AppActorContext } from './ui/AppActorContext';
import { ServicesContext } from './ui/services';
import { App } from './ui/App';
import { readRuntimeConfig } from './runtime-config';
import { inspect } from './inspection/bus';
import './ui/styles.css';

/**
 * Registers the service worker (which caches the app shell, so a loaded model keeps working
 * offline after a reload) and shows "A new version is available" when one waits: both in a chunk
 * of their own, rendered right after the first paint, not in the first-load bundle.
 */
const UpdatePrompt = lazy(async () => {
  const [{ registerServiceWorker }, { UpdatePrompt: Prompt }] = await Promise.all([
    import('./service-worker/updates'),
    import('./ui/UpdatePrompt'),
  ]);
  const updates = registerServiceWorker();
  return { default: () => <Prompt updates={updates} /> };
});

async function main() {
  if (import.meta.env.MODE === 'mock') {
    const { startMockServiceWorker } = await import('../mocks/browser');
    await startMockServiceWorker();
  }
  const config = readRuntimeConfig(window.location);
  if (config.inspect === 'stately') {
    const { startStatelyInspector } = await import('./inspection/stately');
    await startStatelyInspector();
  }
  const logic = createAppLogic({ debug: config.debug });
  const services = createServices();
  // The training panel renders right after the first paint: its code starts loading beside it.
  void services.loadTrainingLogic();
  const rootElement = document.getElementById('root');
  if (!rootElement) throw new Error('#root is missing from index.html');
  createRoot(rootElement).render(
    <StrictMode>
      <AppActorContext.Provider
        logic={logic}
        options={{
          inspect,
          input: {
            models: config.models,
            modelHost: config.modelHost,
            maxNewTokens: config.maxNewTokens,
            replyStallMs: config.replyStallMs,
          },
        }}
      >
        <ServicesContext value={services}>
          <App initialInspect={config.inspect === true} />
        </ServicesContext>
      </AppActorContext.Provider>
      <Suspense fallback={null}>
        <UpdatePrompt />
      </Suspense>
    </StrictMode>,
  );
}

void main();
