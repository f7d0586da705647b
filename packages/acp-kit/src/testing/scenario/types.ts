/**
 * The scenario format of the scripted agent: the TypeScript types of the JSON document.
 * `docs/scripted-agent.md` describes every field with examples.
 *
 * @module
 */
import type * as schema from "../../schema/types.gen.js";
import type { ScenarioStep } from "./step-types.js";

/**
 * A scenario: what a scripted agent advertises and how it answers prompts. Strings in
 * steps may hold placeholders (`${cwd}`, `${args}`, values saved with `saveAs`, ...).
 *
 * ```json
 * {
 *   "name": "hello",
 *   "turns": [
 *     { "match": { "contains": "hello" }, "steps": [{ "text": "Hello from ${cwd}!" }] },
 *     { "steps": [{ "text": "Say hello." }, { "stop": "end_turn" }] }
 *   ]
 * }
 * ```
 */
export interface Scenario {
  /** A JSON Schema reference for editors; ignored. */
  readonly $schema?: string;
  /** The scenario's name (also the default `agentInfo.title`). */
  readonly name?: string;
  /** What the scenario is for; ignored by the agent. */
  readonly description?: string;
  /** What `initialize` answers, and authentication. */
  readonly agent?: ScenarioAgent;
  /** The modes of every session (answered by `session/new`, `load`, `resume`). */
  readonly modes?: schema.SessionModeState;
  /** The config options of every session. */
  readonly configOptions?: readonly schema.SessionConfigOption[];
  /** Slash commands, advertised (`available_commands_update`) after a session is set up. */
  readonly commands?: readonly schema.AvailableCommand[];
  /** Sessions that exist before the run, for `session/list`, `load` and `resume`. */
  readonly sessions?: readonly ScenarioSession[];
  /**
   * How prompts are answered. A prompt runs the first turn whose `match` matches it;
   * otherwise the next turn without `match`, in order (the last one repeats).
   */
  readonly turns: readonly ScenarioTurn[];
}

/** The agent's identity, protocol versions, capabilities and authentication. */
export interface ScenarioAgent {
  /** `agentInfo`. Default `{ name: "acp-scripted-agent", title: <scenario name>, version }`. */
  readonly info?: schema.Implementation;
  /**
   * The protocol versions the agent speaks. `initialize` answers the client's version
   * when listed, else the newest listed. Default `[1]`.
   */
  readonly protocolVersions?: readonly number[];
  /**
   * `agentCapabilities`, sent as given. Methods gated by a capability the scenario does not
   * advertise answer `-32601`. Default: `loadSession`, `embeddedContext` prompts and
   * `sessionCapabilities` `list`, `resume` and `close`.
   */
  readonly capabilities?: schema.AgentCapabilities;
  /** `authMethods` (terminal methods only go to clients advertising `auth.terminal`). */
  readonly authMethods?: readonly schema.AuthMethod[];
  /**
   * When true, `session/new`, `load`, `resume` and `list` answer `-32000` until the client
   * calls `authenticate` with one of `authMethods` (and again after `logout`). With
   * `"prompt"`, sessions open, and `session/prompt` answers `-32000` instead (as Claude's
   * adapter does). `authenticate` with an `env_var` method fails (`-32603`, naming the
   * variables) unless the agent's environment sets each variable it requires.
   */
  readonly requiresAuth?: boolean | "prompt";
  /** How many sessions one `session/list` page holds. Default 50. */
  readonly listPageSize?: number;
  /**
   * Lines the agent program prints on its stdout, outside the protocol, when the client
   * calls `authenticate` with a method, by method id (as Gemini CLI prints its Google login
   * URL and asks for the code). Like Gemini CLI, the agent reads what the client sends next
   * as the answer: when the client answered those lines (a `-32700` with id `null`), the
   * login fails with "invalid authorization code"; otherwise it succeeds (the user logged
   * in in the browser). Printed only by the `acp-scripted-agent` program (or in-process
   * with the `printLine` option).
   */
  readonly loginOutput?: Readonly<Record<string, readonly string[]>>;
}

/** A session that exists before the run. */
export interface ScenarioSession {
  /** Its id. */
  readonly sessionId: string;
  /** Its working directory (absolute). */
  readonly cwd: string;
  /** Its title, for `session/list`. */
  readonly title?: string;
  /** Its last activity (ISO 8601), for `session/list`. */
  readonly updatedAt?: string;
  /** What `session/load` replays. */
  readonly history?: readonly ScenarioHistoryEntry[];
}

/**
 * One replayed update: any `SessionUpdate`, or a shorthand for a text chunk of a user
 * message, an agent message or a thought.
 */
export type ScenarioHistoryEntry =
  | schema.SessionUpdate
  | { readonly user: string }
  | { readonly agent: string }
  | { readonly thought: string };

/** How one kind of prompt is answered. */
export interface ScenarioTurn {
  /** A name for messages and docs; ignored by the agent. */
  readonly name?: string;
  /** Which prompts it answers; absent: the next prompt nothing else matches, in order. */
  readonly match?: PromptMatcher;
  /** What the agent does. The turn ends `end_turn` after the last step unless a step ends it. */
  readonly steps: readonly ScenarioStep[];
}

/**
 * Which prompts a turn answers, tested against the prompt's text (its text blocks joined
 * with newlines, trimmed):
 * - `exact`: the text equals it;
 * - `contains`: the text contains it;
 * - `regex`: the pattern matches (`flags` as for `RegExp`); groups become `${match.1}`,
 *   `${match.<name>}`;
 * - `command`: the text is `/<command>` or starts with `/<command> `; the rest is `${args}`.
 */
export type PromptMatcher =
  | { readonly exact: string }
  | { readonly contains: string }
  | { readonly regex: string; readonly flags?: string }
  | { readonly command: string };
