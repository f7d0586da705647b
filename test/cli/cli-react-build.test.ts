/**
 * `run` draws with React's production build, and the agent it starts does not inherit the
 * `NODE_ENV` that chose it.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { testTempDir } from "../support/temp-dir.js";
import { hasTmux, shellQuote, TmuxSession } from "../support/tmux.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");
const scriptedAgent = join(repoRoot, "packages", "acp-kit", "dist", "scripted-agent.js");
const scenario = join(repoRoot, "test", "cli", "fixtures", "cli-scenario.json");
const sessions: TmuxSession[] = [];

beforeAll(() => {
  if (!hasTmux()) throw new Error("tmux is needed for the CLI's terminal tests");
  if (!existsSync(cli)) throw new Error("Build first (npm run build)");
});

afterEach(() => {
  for (const session of sessions.splice(0)) session.kill();
});

describe("acp-kit run: React's build", () => {
  it("loads React's production build, and the agent does not see NODE_ENV", async () => {
    const dir = testTempDir("acp-kit-react-build-");
    const loaded = join(dir, "loaded.txt");
    const agentEnv = join(dir, "agent-env.txt");
    // Preloaded into the CLI: writes down each React file that is loaded.
    const hook = join(dir, "hook.cjs");
    writeFileSync(
      hook,
      `const Module = require("node:module");
const fs = require("node:fs");
const load = Module._load;
Module._load = function (request, parent, isMain) {
  const result = load.apply(this, arguments);
  try {
    const file = Module._resolveFilename(request, parent, isMain);
    if (/[\\/]react(-reconciler)?[\\/]cjs[\\/]/.test(file)) {
      fs.appendFileSync(${JSON.stringify(loaded)}, file + "\\n");
    }
  } catch {
    // A built-in module, or one that failed to load: not React.
  }
  return result;
};
`,
    );
    const agent = [process.execPath, scriptedAgent, scenario].map(shellQuote).join(" ");
    const line = [
      process.execPath,
      "--require",
      hook,
      cli,
      "run",
      "--",
      "sh",
      "-c",
      `printf '%s' "\${NODE_ENV-unset}" > ${shellQuote(agentEnv)}; exec ${agent}`,
    ]
      .map(shellQuote)
      .join(" ");
    const t = TmuxSession.start(line, { cwd: repoRoot, width: 100, height: 45 });
    sessions.push(t);
    await t.waitFor("CLI test agent 1.2.3");
    t.send("/quit");
    await t.waitFor("[exited 0]");
    const files = readFileSync(loaded, "utf8");
    expect(files).toMatch(/react\.production\.js/);
    expect(files).toMatch(/react-reconciler\.production\.js/);
    expect(files).not.toMatch(/development\.js/);
    expect(readFileSync(agentEnv, "utf8")).toBe("unset");
  });
});
