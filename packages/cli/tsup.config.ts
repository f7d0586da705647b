import { defineConfig } from "tsup";

// The `acp-kit` executable: ESM only, with a shebang. Split, so that each command loads
// only what it uses (`acp-kit agents` does not load the terminal UI), and so that the
// terminal UI is loaded after `run` has decided on colours (its colour library reads the
// environment once, when it is loaded). The library is a dependency, never bundled.
export default defineConfig({
  entry: { cli: "src/main.ts" },
  format: ["esm"],
  dts: false,
  sourcemap: false,
  clean: false,
  target: "node20",
  platform: "node",
  splitting: true,
  treeshake: true,
  external: [/^acp-kit(\/|$)/],
  banner: { js: "#!/usr/bin/env node" },
});
