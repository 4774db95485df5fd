/// <reference types="vite/client" />

/** The `VITE_` variables the app reads (vite.dev/guide/env-and-mode: IntelliSense for TypeScript). */
interface ImportMetaEnv {
  /** The training service's base URL (default http://127.0.0.1:8000). */
  readonly VITE_TRAINING_URL?: string;
}
