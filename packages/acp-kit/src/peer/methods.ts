/**
 * Protocol constants: the protocol version and the method names grouped by side.
 *
 * @module
 */
import type {
  AgentNotificationTypes,
  AgentRequestTypes,
  ClientNotificationTypes,
  ClientRequestTypes,
} from "../schema/methods.gen.js";

/** The protocol version this library speaks (the major version of ACP). */
export const PROTOCOL_VERSION = 1;

type AgentMethod = keyof AgentRequestTypes | keyof AgentNotificationTypes;
type ClientMethod = keyof ClientRequestTypes | keyof ClientNotificationTypes;

/**
 * Method names grouped by the side that handles them, for readable calls such as
 * `connection.request(methods.client.fs.readTextFile, params)`.
 */
export const methods = {
  /** Methods the agent handles (the client calls them). */
  agent: {
    initialize: "initialize",
    authenticate: "authenticate",
    logout: "logout",
    auth: { status: "auth/status" },
    providers: { list: "providers/list", set: "providers/set", disable: "providers/disable" },
    session: {
      new: "session/new",
      load: "session/load",
      list: "session/list",
      delete: "session/delete",
      fork: "session/fork",
      archive: "session/archive",
      unarchive: "session/unarchive",
      status: "session/status",
      setTitle: "session/set_title",
      resume: "session/resume",
      close: "session/close",
      setMode: "session/set_mode",
      setConfigOption: "session/set_config_option",
      prompt: "session/prompt",
      cancel: "session/cancel",
    },
    mcp: { message: "mcp/message" },
    nes: {
      start: "nes/start",
      suggest: "nes/suggest",
      close: "nes/close",
      accept: "nes/accept",
      reject: "nes/reject",
    },
    document: {
      didOpen: "document/didOpen",
      didChange: "document/didChange",
      didClose: "document/didClose",
      didSave: "document/didSave",
      didFocus: "document/didFocus",
    },
  },
  /** Methods the client handles (the agent calls them). */
  client: {
    session: { requestPermission: "session/request_permission", update: "session/update" },
    fs: { writeTextFile: "fs/write_text_file", readTextFile: "fs/read_text_file" },
    terminal: {
      create: "terminal/create",
      output: "terminal/output",
      release: "terminal/release",
      waitForExit: "terminal/wait_for_exit",
      kill: "terminal/kill",
    },
    elicitation: { create: "elicitation/create", complete: "elicitation/complete" },
    auth: { statusUpdate: "auth/status_update" },
    mcp: { message: "mcp/message" },
  },
  /** Protocol-level methods either side may send. */
  protocol: { cancelRequest: "$/cancel_request" },
} as const satisfies {
  agent: Record<string, AgentMethod | Record<string, AgentMethod>>;
  client: Record<string, Record<string, ClientMethod>>;
  protocol: Record<string, "$/cancel_request">;
};
