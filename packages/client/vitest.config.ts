import { defineConfig } from 'vitest/config';

/** Timeouts are for hangs, not speed: on two busy CI cores a test of a few milliseconds can wait seconds for the CPU. */
export default defineConfig({
  test: { testTimeout: 20_000 },
});
