import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

afterEach(() => cleanup());

// The unit suite runs two files at a time beside the trainer's processes (vitest.config.ts): a
// `findBy…` that waits for a streamed result gets 5 s, not Testing Library's 1 s.
configure({ asyncUtilTimeout: 5_000 });

// jsdom lays nothing out and has no ResizeObserver: one that never reports (a test that needs
// reports stubs its own).
globalThis.ResizeObserver ??= class {
  observe() {}
  unobserve() {}
  disconnect() {}
};
