import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: [
      {
        find: /^acp-kit$/,
        replacement: new URL("./packages/acp-kit/src/index.ts", import.meta.url).pathname,
      },
      {
        find: /^acp-kit\/node$/,
        replacement: new URL("./packages/acp-kit/src/node/index.ts", import.meta.url).pathname,
      },
      {
        find: /^acp-kit\/http$/,
        replacement: new URL("./packages/acp-kit/src/http/index.ts", import.meta.url).pathname,
      },
      {
        find: /^acp-kit\/internal$/,
        replacement: new URL("./packages/acp-kit/src/internal.ts", import.meta.url).pathname,
      },
      {
        find: /^acp-kit\/v2$/,
        replacement: new URL("./packages/acp-kit/src/v2/index.ts", import.meta.url).pathname,
      },
      {
        find: /^acp-kit\/proxy$/,
        replacement: new URL("./packages/acp-kit/src/proxy/index.ts", import.meta.url).pathname,
      },
      {
        find: /^acp-kit\/mcp$/,
        replacement: new URL("./packages/acp-kit/src/mcp/index.ts", import.meta.url).pathname,
      },
      {
        find: /^acp-kit\/testing$/,
        replacement: new URL("./packages/acp-kit/src/testing/index.ts", import.meta.url).pathname,
      },
    ],
  },
  test: {
    include: ["packages/*/src/**/*.test.ts", "packages/*/src/**/*.test.tsx", "test/**/*.test.ts"],
    setupFiles: ["test/support/state-dir.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
