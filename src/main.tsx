/**
 * The composition root: the only place that wires real actors (the Web Worker, the WebGPU probe)
 * into the machines. Tests wire fakes the same way with `appMachine.provide`.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { appMachine } from './machines/appMachine';
import { createLlmWorkerActor } from './actors/llm-worker-actor';
import { probeWebGPUActor } from './actors/webgpu-probe';
import { createConversationStoreActor } from './actors/conversation-store';
import { requestPersistActor, storageEstimateActor } from './actors/storage-manager';
import { storedModelsMachine } from './machines/storedModelsMachine';
import { AppActorContext } from './ui/AppActorContext';
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
  const logic = appMachine.provide({
    actors: {
      probeWebGPU: probeWebGPUActor,
      conversationStore: createConversationStoreActor(),
      storedModels: storedModelsMachine.provide({
        actors: { storageEstimate: storageEstimateActor, requestPersist: requestPersistActor },
      }),
      llmWorker: createLlmWorkerActor(
        () =>
          new Worker(new URL('./actors/llm.worker.ts', import.meta.url), {
            type: 'module',
            name: 'llm',
          }),
      ),
    },
  });
  // Caches the app shell so a loaded model keeps working offline after a reload.
  const updates = registerServiceWorker();
  const queryClient = new QueryClient();
  const rootElement = document.getElementById('root');
  if (!rootElement) throw new Error('#root is missing from index.html');
  createRoot(rootElement).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <AppActorContext.Provider
          logic={logic}
          options={{
            inspect,
            input: {
              models: config.models,
              modelHost: config.modelHost,
              maxNewTokens: config.maxNewTokens,
            },
          }}
        >
          <App initialInspect={config.inspect === true} />
        </AppActorContext.Provider>
      </QueryClientProvider>
      <UpdatePrompt updates={updates} />
    </StrictMode>,
  );
}

void main();
