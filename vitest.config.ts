import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

export default defineConfig({
  plugins: [react()],
  test: {
    // Two files at a time even on a 2-core machine (vitest's default there is one): many files
    // wait on child processes (the trainer's Python, llama.cpp, servers), so the second worker
    // halves the wall time (unit suite: 702 s → 465 s on 2 cores); peak memory stays under 6 GB.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'dom',
          environment: 'jsdom',
          include: ['src/**/*.test.tsx', 'tests/component/**/*.test.{ts,tsx}'],
          setupFiles: ['tests/setup-dom.ts', 'tests/render/jsdom-selector-listeners.ts'],
          // jsdom renders of the larger panels take seconds on a loaded 2-core machine; vitest's
          // 5 s default failed them there.
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'node',
          environment: 'node',
          include: [
            'src/**/*.test.ts',
            'service/**/*.test.ts',
            'mocks/**/*.test.ts',
            'tests/node/**/*.test.ts',
          ],
          testTimeout: 60_000,
        },
      },
    ],
  },
});
