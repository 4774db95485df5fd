/**
 * Starts the app: mock mode, the inspector, and the real implementations built by the composition
 * root (src/composition.ts) handed to React (the app actor's logic and the panels' services).
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createAppLogic, createServices } from './composition';
import { AppActorContext } from './ui/AppActorContext';
import { ServicesContext } from './ui/services';
import { App } from './ui/App';
import { readRuntimeConfig } from './runtime-config';
import { inspect } from './inspection/bus';
import { registerServiceWorker } from './service-worker/updates';
import { UpdatePrompt } from './ui/UpdatePrompt';
import './ui/styles.css';

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
  // Caches the app shell so a loaded model keeps working offline after a reload.
  const updates = registerServiceWorker();
  const services = createServices();
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
      <UpdatePrompt updates={updates} />
    </StrictMode>,
  );
}

void main();
