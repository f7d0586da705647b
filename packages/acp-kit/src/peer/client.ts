/**
 * The {@link Client} interface: what a client (an editor) implements for the agent to
 * call.
 *
 * @module
 */
import type { MaybePromise } from "../base/messages.js";
import type * as schema from "../schema/types.gen.js";
import type { RequestContext } from "./agent.js";

/**
 * An ACP client. Implement it and hand it to {@link ClientSideConnection}; an
 * {@link AgentSideConnection} offers the same calls to an agent.
 *
 * Optional methods answer `-32601` (method not found) when absent: only implement the
 * file-system and terminal methods you advertise in `clientCapabilities`.
 */
export interface Client {
  /** `session/request_permission`: ask the user (or a policy) to choose an option. */
  requestPermission(
    params: schema.RequestPermissionRequest,
    context?: RequestContext,
  ): MaybePromise<schema.RequestPermissionResponse>;
  /** `session/update` (notification): one streamed change to a session. */
  sessionUpdate(params: schema.SessionNotification): MaybePromise<void>;
  /** `fs/write_text_file`: write a whole text file (creating it if needed). */
  writeTextFile?(
    params: schema.WriteTextFileRequest,
    context?: RequestContext,
  ): MaybePromise<schema.WriteTextFileResponse | void>;
  /** `fs/read_text_file`: read a text file, optionally a range of lines. */
  readTextFile?(
    params: schema.ReadTextFileRequest,
    context?: RequestContext,
  ): MaybePromise<schema.ReadTextFileResponse>;
  /** `terminal/create`: start a command; answer with its terminal id right away. */
  createTerminal?(
    params: schema.CreateTerminalRequest,
    context?: RequestContext,
  ): MaybePromise<schema.CreateTerminalResponse>;
  /** `terminal/output`: the output so far and, once exited, the exit status. */
  terminalOutput?(
    params: schema.TerminalOutputRequest,
    context?: RequestContext,
  ): MaybePromise<schema.TerminalOutputResponse>;
  /** `terminal/release`: kill the command if running and forget the terminal. */
  releaseTerminal?(
    params: schema.ReleaseTerminalRequest,
    context?: RequestContext,
  ): MaybePromise<schema.ReleaseTerminalResponse | void>;
  /** `terminal/wait_for_exit`: answer when the command has exited. */
  waitForTerminalExit?(
    params: schema.WaitForTerminalExitRequest,
    context?: RequestContext,
  ): MaybePromise<schema.WaitForTerminalExitResponse>;
  /** `terminal/kill`: stop the command, keeping the terminal. */
  killTerminal?(
    params: schema.KillTerminalRequest,
    context?: RequestContext,
  ): MaybePromise<schema.KillTerminalResponse | void>;
  /** `elicitation/create`: ask the user for structured input or to visit a URL. */
  createElicitation?(
    params: schema.CreateElicitationRequest,
    context?: RequestContext,
  ): MaybePromise<schema.CreateElicitationResponse>;
  /** `elicitation/complete` (notification): a URL elicitation finished. */
  completeElicitation?(params: schema.CompleteElicitationNotification): MaybePromise<void>;

  /** `mcp/message` request from the agent (unstable). @experimental */
  unstable_messageMcp?(
    params: schema.MessageMcpRequest,
    context?: RequestContext,
  ): MaybePromise<schema.MessageMcpResponse>;
  /** `auth/status_update` notification (unstable). @experimental */
  unstable_authStatusUpdate?(params: schema.AuthStatusUpdateNotification): MaybePromise<void>;

  /**
   * `elicitation/create` under its 0.19 to 1.3 name; used when
   * {@link Client.createElicitation} is absent.
   * @deprecated Implement {@link Client.createElicitation}.
   */
  unstable_createElicitation?(
    params: schema.CreateElicitationRequest,
    context?: RequestContext,
  ): MaybePromise<schema.CreateElicitationResponse>;
  /**
   * `elicitation/complete` under its 0.19 to 1.3 name; used when
   * {@link Client.completeElicitation} is absent.
   * @deprecated Implement {@link Client.completeElicitation}.
   */
  unstable_completeElicitation?(params: schema.CompleteElicitationNotification): MaybePromise<void>;

  /** Any other request (extension methods are named with a leading `_`). */
  extMethod?(
    method: string,
    params: Record<string, unknown>,
    context?: RequestContext,
  ): MaybePromise<Record<string, unknown>>;
  /** Any other notification. */
  extNotification?(method: string, params: Record<string, unknown>): MaybePromise<void>;
}

/** The name of the {@link Client} method handling each client-side wire method. */
export const CLIENT_HANDLER_NAMES = {
  "session/request_permission": "requestPermission",
  "session/update": "sessionUpdate",
  "fs/write_text_file": "writeTextFile",
  "fs/read_text_file": "readTextFile",
  "terminal/create": "createTerminal",
  "terminal/output": "terminalOutput",
  "terminal/release": "releaseTerminal",
  "terminal/wait_for_exit": "waitForTerminalExit",
  "terminal/kill": "killTerminal",
  "elicitation/create": "createElicitation",
  "elicitation/complete": "completeElicitation",
  "mcp/message": "unstable_messageMcp",
  "auth/status_update": "unstable_authStatusUpdate",
} as const;

/**
 * The names classic releases (SDK 0.19 to 1.3) gave the {@link Client} method handling a
 * wire method, tried in order when today's name is absent.
 */
export const CLIENT_CLASSIC_HANDLER_NAMES: Readonly<Record<string, readonly string[]>> = {
  "elicitation/create": ["unstable_createElicitation"],
  "elicitation/complete": ["unstable_completeElicitation"],
};
