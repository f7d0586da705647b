import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: [
      { find: /^acp-kit$/, replacement: new URL("./src/index.ts", import.meta.url).pathname },
      {
        find: /^acp-kit\/node$/,
        replacement: new URL("./src/node/index.ts", import.meta.url).pathname,
      },
      {
        find: /^acp-kit\/testing$/,
        replacement: new URL("./src/testing/index.ts", import.meta.url).pathname,
      },
    ],
  },
  test: {
    include: ["src/**/*.test.ts", "src/**/*.test.tsx", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
