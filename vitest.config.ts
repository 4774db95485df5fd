import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

export default defineConfig({
  plugins: [react()],
  test: {
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
