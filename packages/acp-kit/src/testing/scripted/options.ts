/**
 * The options of a scripted agent (apart from the agent itself, so that the v1 and v2
 * players can both use them without importing each other).
 *
 * @module
 */
import type { Logger } from "../../base/logger.js";
import type { ScenarioSession } from "../scenario/types.js";
import type { ScriptedCommandRunner, ScriptedFileSystem } from "./v2-steps.js";

/** The ACP versions the scripted agent can serve: `1`, `2`, or `"auto"` (both). */
export type ScriptedAgentProtocol = 1 | 2 | "auto";

/** Options of the scripted agent. */
export interface ScriptedAgentOptions {
  /**
   * Multiplies every delay of the scenario (`delayMs`, `delay` steps); 0 turns them off
   * (for tests), 2 makes them twice as long. Default 1.
   */
  readonly delayScale?: number;
  /** Where the agent's turns report what they drop. Default: silent. */
  readonly logger?: Logger;
  /**
   * The agent's environment variables, which `authenticate` with an `env_var` method
   * requires (the program passes its own). Default: none.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Called with every session (declared and created) after a session is created and after
   * each prompt turn, to keep them across runs (the program's `--sessions-file`): give
   * them back as the scenario's `sessions` next time. In v2 a session's history is what
   * the scenario declared: what v2 turns sent is not added to it.
   */
  readonly onSessionsChange?: (sessions: ScenarioSession[]) => void;
  /**
   * Which ACP version {@link runScriptedAgent} serves: `1` (default) the classic protocol,
   * `2` ACP v2 only (a v1 `initialize` is answered `-32022`), `"auto"` both, chosen by the
   * client's `initialize` (through `protocolRouter`). docs/scripted-agent.md ("ACP v2")
   * says how each step is said in v2.
   */
  readonly protocol?: ScriptedAgentProtocol;
  /**
   * v2 only: runs the command of a `terminal` step, which the agent then shows as its own
   * terminal (v2 has no client terminals). Without it, `terminal` steps fail in v2. The
   * program passes one that runs the command.
   */
  readonly runCommand?: ScriptedCommandRunner;
  /**
   * v2 only: the files `readFile` and `writeFile` steps use (v2 has no client file
   * system: the agent reads and writes itself). Without it, those steps fail in v2. The
   * program passes the local file system.
   */
  readonly fileSystem?: ScriptedFileSystem;
  /**
   * v1: writes a line to the agent's stdout outside the protocol (the scenario's
   * `agent.loginOutput`), through the same writer as the protocol's messages, so that it
   * lands between two messages. The program passes its stdout. Without it, those lines
   * are not printed and logins succeed.
   */
  readonly printLine?: (line: string) => void;
}
