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
    // Executables: ESM only, with a shebang. Split, so that each command loads only what
    // it uses (`acp-kit agents` does not load the terminal UI), and so that the terminal
    // UI is loaded after `run` has decided on colours (its colour library reads the
    // environment once, when it is loaded).
    entry: { cli: "src/cli/main.ts", "scripted-agent": "src/testing/scripted-agent-main.ts" },
    format: ["esm"],
    dts: false,
    sourcemap: true,
    clean: false,
    target: "node20",
    platform: "node",
    splitting: true,
    treeshake: true,
    banner: { js: "#!/usr/bin/env node" },
  },
]);
