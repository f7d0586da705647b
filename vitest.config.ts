import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: { "acp-kit": new URL("./src/index.ts", import.meta.url).pathname },
  },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
