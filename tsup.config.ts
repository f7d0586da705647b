import { defineConfig } from "tsup";

export default defineConfig([
  {
    // The library entries. `npm run build` empties dist/ first (not tsup: both builds run
    // at once, and one must not clean away what the other wrote).
    entry: { index: "src/index.ts", node: "src/node/index.ts", testing: "src/testing/index.ts" },
    format: ["esm", "cjs"],
    dts: true,
    sourcemap: true,
    clean: false,
    target: "node20",
    platform: "node",
    splitting: false,
    treeshake: true,
  },
  {
    // Executables: ESM only, with a shebang.
    entry: { cli: "src/cli/main.ts", "scripted-agent": "src/testing/scripted-agent-main.ts" },
    format: ["esm"],
    dts: false,
    sourcemap: true,
    clean: false,
    target: "node20",
    platform: "node",
    splitting: false,
    treeshake: true,
    banner: { js: "#!/usr/bin/env node" },
  },
]);
