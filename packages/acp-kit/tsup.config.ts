import { defineConfig } from "tsup";

// One build for every entry and both module formats, with code splitting on, so that the
// entries share one copy of each module (an error thrown by `acp-kit/node` is the
// `RequestError` class that `acp-kit` exports, in ESM and in CJS alike). `npm run build`
// empties dist/ first.
export default defineConfig([
  {
    entry: {
      index: "src/index.ts",
      node: "src/node/index.ts",
      testing: "src/testing/index.ts",
      http: "src/http/index.ts",
      internal: "src/internal.ts",
      v2: "src/v2/index.ts",
      proxy: "src/proxy/index.ts",
      mcp: "src/mcp/index.ts",
    },
    format: ["esm", "cjs"],
    dts: true,
    sourcemap: false,
    clean: false,
    target: "node20",
    platform: "node",
    splitting: true,
    treeshake: true,
  },
  {
    // The scripted agent's executable: ESM with a shebang, loading the library's own
    // entries (not a second copy of the engine).
    entry: { "scripted-agent": "src/testing/scripted/agent-main.ts" },
    format: ["esm"],
    dts: false,
    sourcemap: false,
    clean: false,
    target: "node20",
    platform: "node",
    splitting: false,
    treeshake: true,
    external: ["acp-kit", "acp-kit/node", "acp-kit/testing"],
    banner: { js: "#!/usr/bin/env node" },
  },
]);
