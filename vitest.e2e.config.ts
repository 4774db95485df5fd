import { defineConfig } from 'vitest/config';

// End-to-end tests: the built app (dist/) in Debian's Chromium via playwright-core.
// One file at a time: Chromium with SwiftShader WebGPU is heavy on a 2-core machine.
export default defineConfig({
  test: {
    name: 'e2e',
    environment: 'node',
    include: ['tests/e2e/**/*.e2e.test.ts'],
    fileParallelism: false,
    testTimeout: 240_000,
    hookTimeout: 120_000,
    // expect.poll's own default (1 s) is shorter than a busy 2-core machine takes to paint a
    // screen; a poll that names its own timeout keeps it.
    expect: { poll: { timeout: 20_000 } },
  },
});
