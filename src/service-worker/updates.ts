/**
 * Service worker registration and the "new version" signal. When a new build's service worker has
 * installed and waits behind the one controlling this page, `available()` turns true; `apply()`
 * tells it to take over and reloads once it controls the page. No DOM or React here: the
 * composition root registers, src/ui/UpdatePrompt.tsx shows the prompt.
 */
type Listener = () => void;

/** The parts of a ServiceWorker, its registration and container this module uses (fakes in tests). */
export interface WorkerLike {
  state: string;
  postMessage(message: unknown): void;
  addEventListener(type: 'statechange', listener: Listener): void;
}
export interface RegistrationLike {
  waiting: WorkerLike | null;
  installing: WorkerLike | null;
  addEventListener(type: 'updatefound', listener: Listener): void;
}
export interface ContainerLike {
  controller: unknown;
  addEventListener(type: 'controllerchange', listener: Listener): void;
}

export interface Updates {
  subscribe: (listener: Listener) => () => void;
  available: () => boolean;
  apply: () => void;
}

export interface UpdateTracker extends Updates {
  /** Follows a registration; `reload` runs once the waiting worker has taken over. */
  watch(container: ContainerLike, registration: RegistrationLike, reload: () => void): void;
}

export function createUpdateTracker(): UpdateTracker {
  const listeners = new Set<Listener>();
  let waiting: WorkerLike | null = null;
  const offer = (worker: WorkerLike) => {
    waiting = worker;
    listeners.forEach((listener) => listener());
  };
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    available: () => waiting !== null,
    apply() {
      waiting?.postMessage({ type: 'skip-waiting' });
    },
    watch(container, registration, reload) {
      // No controller: this is the first install, which activates at once (nothing to offer).
      if (registration.waiting && container.controller) offer(registration.waiting);
      registration.addEventListener('updatefound', () => {
        const worker = registration.installing;
        worker?.addEventListener('statechange', () => {
          if (worker.state === 'installed' && container.controller) offer(worker);
        });
      });
      // The first install's clients.claim() also changes the controller: reload only when the
      // user asked for the new version.
      let reloading = false;
      container.addEventListener('controllerchange', () => {
        if (waiting === null || reloading) return;
        reloading = true;
        reload();
      });
    },
  };
}

/** Registers /sw.js in production builds (never in mock mode, where MSW owns the worker slot). */
export function registerServiceWorker(): Updates {
  const tracker = createUpdateTracker();
  if ('serviceWorker' in navigator && import.meta.env.PROD && import.meta.env.MODE !== 'mock') {
    const container = navigator.serviceWorker;
    container
      .register('/sw.js')
      .then((registration) => tracker.watch(container, registration, () => location.reload()))
      .catch((error: unknown) => console.warn('Service worker:', error));
  }
  return tracker;
}
