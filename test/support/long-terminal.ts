/**
 * A scenario for the scripted agent whose only turn runs a long command in a client
 * terminal, and a way to learn that command's process id: for tests that prove the
 * terminals an agent started do not outlive the CLI.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "../node/fixtures/terminal-helpers.js";
import { testTempDir } from "./temp-dir.js";

/** The scenario file, and the pid of the terminal's command once it runs. */
export interface LongTerminalScenario {
  /** The scenario's path (agent name `builder 0.1.0`; any prompt starts the command). */
  readonly path: string;
  /** Resolves with the pid of the command (the leader of its process group). */
  terminalPid(): Promise<number>;
}

/** Writes the scenario into a new temporary directory. */
export function longTerminalScenario(): LongTerminalScenario {
  const dir = testTempDir("acp-kit-long-terminal-");
  const pidFile = join(dir, "terminal.pid");
  const path = join(dir, "scenario.json");
  writeFileSync(
    path,
    JSON.stringify({
      agent: { info: { name: "builder", version: "0.1.0" } },
      turns: [
        {
          steps: [
            { toolCall: "A long build", kind: "execute" },
            { terminal: "sh", args: ["-c", `echo $$ > ${pidFile}; exec sleep 300`] },
          ],
        },
      ],
    }),
  );
  return {
    path,
    terminalPid: () =>
      waitFor(() => {
        const text = existsSync(pidFile) ? readFileSync(pidFile, "utf8").trim() : "";
        return text === "" ? undefined : Number(text);
      }, "the terminal's command to start"),
  };
}
