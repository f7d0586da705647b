/**
 * Our own one-paragraph summaries for the generated protocol types, keyed by definition
 * name (`Name`) or property (`Name.property`). Written for acp-kit; nothing here is taken
 * from the schema's description text. Types without an entry get a generic line and a
 * link to the protocol reference.
 */
export const TYPE_DOCS: Readonly<Record<string, string>> = {
  // Connection set-up
  InitializeRequest:
    "Params of `initialize`, the first request a client sends: the newest protocol version it\nspeaks, what it can do, and who it is.",
  InitializeResponse:
    "Result of `initialize`: the protocol version both sides will use, the agent's\ncapabilities, its authentication methods and who it is.",
  "InitializeRequest.protocolVersion": "The newest major protocol version the client supports.",
  "InitializeResponse.protocolVersion":
    "The version the connection will use: the client's if the agent supports it, otherwise\nthe agent's newest.",
  ClientCapabilities:
    "What the client offers the agent: file-system access, terminals, boolean config\noptions, terminal authentication and elicitation. Anything absent is unsupported.",
  AgentCapabilities:
    "What the agent supports beyond the baseline: loading sessions, richer prompt content,\nMCP transports, session management and logout. Anything absent is unsupported.",
  FileSystemCapabilities: "Which `fs/*` requests the client answers.",
  PromptCapabilities:
    "Which prompt content the agent accepts besides `text` and `resource_link` (always\naccepted).",
  McpCapabilities: "Which MCP transports the agent can connect to besides stdio.",
  SessionCapabilities:
    "Which optional session methods the agent implements; each is a marker object, absent or\n`null` meaning unsupported.",
  Implementation: "Name, optional display title and version of a client or agent program.",
  ProtocolVersion: "A major protocol version number (currently 1).",
  AuthMethod:
    "A way to authenticate with the agent: in-protocol (`authenticate`) or by running the\nagent's login command in a terminal.",
  AuthMethodAgent: "An authentication method the client triggers with `authenticate`.",
  AuthMethodTerminal:
    "An authentication method the client runs as an interactive terminal command (the\nagent's own command with extra arguments and environment).",
  AuthenticateRequest: "Params of `authenticate`: which advertised method to use.",
  AuthenticateResponse: "Result of `authenticate` (empty on success).",
  LogoutRequest: "Params of `logout` (empty).",
  LogoutResponse: "Result of `logout` (empty).",

  // Sessions
  NewSessionRequest:
    "Params of `session/new`: the working directory, the MCP servers to connect to and any\nextra workspace roots.",
  NewSessionResponse:
    "Result of `session/new`: the new session's id and its initial modes and config options.",
  LoadSessionRequest:
    "Params of `session/load`: the session to restore, with history replayed as updates\nbefore the answer.",
  LoadSessionResponse: "Result of `session/load`: the session's modes and config options.",
  ResumeSessionRequest: "Params of `session/resume`: restore a session without replaying history.",
  ResumeSessionResponse: "Result of `session/resume`: the session's modes and config options.",
  ListSessionsRequest: "Params of `session/list`: an optional `cwd` filter and a page cursor.",
  ListSessionsResponse: "Result of `session/list`: one page of sessions and the cursor to the next.",
  SessionInfo: "What `session/list` says about a session: id, working directory, title, last activity.",
  CloseSessionRequest: "Params of `session/close`: the session to cancel and release.",
  CloseSessionResponse: "Result of `session/close` (empty).",
  DeleteSessionRequest: "Params of `session/delete`: the session to forget.",
  DeleteSessionResponse: "Result of `session/delete` (empty).",
  SessionId: "An opaque session identifier chosen by the agent.",
  McpServer:
    "An MCP server for the agent to connect to: stdio (no `type`), `http` or `sse`.",
  McpServerStdio: "An MCP server the agent starts as a local process.",
  McpServerHttp: "An MCP server reached over streamable HTTP.",
  McpServerSse: "An MCP server reached over server-sent events (a deprecated MCP transport).",
  EnvVariable: "One environment variable: name and value.",
  HttpHeader: "One HTTP header: name and value.",

  // Modes and config options
  SessionModeState: "The session's current mode and the modes it can switch to.",
  SessionMode: "One mode a session can be in (for example `ask` or `code`).",
  SessionModeId: "The id of a session mode.",
  SetSessionModeRequest: "Params of `session/set_mode`: the session and the mode to switch to.",
  SetSessionModeResponse: "Result of `session/set_mode` (empty).",
  SessionConfigOption:
    "A setting of the session the client can show and change: a select or a boolean, with\nits current value.",
  SessionConfigSelect: "The select form of a config option: its value and the allowed values.",
  SessionConfigBoolean: "The boolean form of a config option.",
  SessionConfigSelectOption: "One allowed value of a select config option.",
  SessionConfigSelectGroup: "A named group of allowed values of a select config option.",
  SessionConfigSelectOptions: "The allowed values of a select config option, flat or grouped.",
  SessionConfigOptionCategory:
    "A UI hint for a config option (`mode`, `model`, `model_config`, `thought_level`, or a\ncustom `_`-prefixed name); never needed for correctness.",
  SetSessionConfigOptionRequest:
    "Params of `session/set_config_option`: a select value id, or a boolean with\n`type: \"boolean\"`.",
  SetSessionConfigOptionResponse: "Result of `session/set_config_option`: the complete set of config options.",

  // Prompt turns
  PromptRequest: "Params of `session/prompt`: the session and the user's message as content blocks.",
  PromptResponse: "Result of `session/prompt`: why the turn ended.",
  StopReason:
    "Why a prompt turn ended: `end_turn`, `max_tokens`, `max_turn_requests`, `refusal` or\n`cancelled`.",
  CancelNotification: "Params of `session/cancel`: the session whose running turn should stop.",
  SessionNotification: "Params of `session/update`: the session and one update for it.",
  SessionUpdate:
    "One streamed change to a session, discriminated by `sessionUpdate`: message and thought\nchunks, tool calls and their updates, the plan, commands, mode, config, info and usage.",
  ContentChunk: "A piece of a user, agent or thought message, with an optional message id.",
  MessageId: "An opaque id shared by the chunks of one message.",
  ContentBlock:
    "A piece of content, discriminated by `type`: `text`, `image`, `audio`, `resource_link` or\n`resource`.",
  TextContent: "Text content (Markdown).",
  ImageContent: "Base64 image content with its MIME type.",
  AudioContent: "Base64 audio content with its MIME type.",
  ResourceLink: "A reference to a resource the agent can fetch itself.",
  EmbeddedResource: "The contents of a resource, included in the message.",
  EmbeddedResourceResource: "Embedded resource contents: text or base64 blob.",
  TextResourceContents: "The text contents of a resource.",
  BlobResourceContents: "The base64 binary contents of a resource.",
  Annotations: "Optional hints about content: audience, last modification time, priority.",
  Role: "Who a piece of content is for: `user` or `assistant`.",
  Plan: "The agent's plan for the turn; every update replaces the whole list.",
  PlanEntry: "One step of a plan, with priority and status.",
  PlanEntryPriority: "How important a plan step is.",
  PlanEntryStatus: "Where a plan step stands.",
  AvailableCommand: "A slash command the user can type, without its leading `/`.",
  AvailableCommandInput: "How a slash command takes input.",
  UnstructuredCommandInput: "Free-text command input, with a placeholder hint.",
  AvailableCommandsUpdate: "The complete, current list of slash commands.",
  CurrentModeUpdate: "The agent switched the session to another mode.",
  ConfigOptionUpdate: "The complete, current set of config options.",
  SessionInfoUpdate:
    "A patch of session metadata: an omitted field is unchanged, `null` clears it.",
  UsageUpdate: "Context window usage (tokens used and available) and cumulative cost.",
  Cost: "An amount of money in an ISO 4217 currency.",

  // Tool calls
  ToolCall: "A tool call the agent is about to make or is making.",
  ToolCallUpdate:
    "A change to a tool call: only `toolCallId` is required; `content` and `locations`\nreplace the previous lists when present.",
  ToolCallId: "An id, unique within the session, naming a tool call.",
  ToolKind: "What kind of work a tool call does, for the client's icon and grouping.",
  ToolCallStatus: "Where a tool call stands: `pending`, `in_progress`, `completed` or `failed`.",
  ToolCallContent:
    "Content produced by a tool call, discriminated by `type`: regular `content`, a `diff`\nor a live `terminal`.",
  Content: "Regular content shown for a tool call.",
  Diff: "A change to a file: old and new text for an absolute path (no old text for a new file).",
  Terminal: "A terminal (created with `terminal/create`) embedded in a tool call.",
  ToolCallLocation: "A file (and optional line) a tool call is working on.",

  // Permissions
  RequestPermissionRequest:
    "Params of `session/request_permission`: the tool call in question and the options to\nchoose from.",
  RequestPermissionResponse: "Result of `session/request_permission`: the outcome.",
  RequestPermissionOutcome:
    "The answer to a permission request: an option was `selected`, or the turn was\n`cancelled`.",
  SelectedPermissionOutcome: "The option the user (or a policy) picked.",
  PermissionOption: "One choice offered in a permission request.",
  PermissionOptionId: "The id of a permission option.",
  PermissionOptionKind:
    "How the client may present a permission option: allow or reject, once or always.",

  // File system and terminals
  ReadTextFileRequest:
    "Params of `fs/read_text_file`: an absolute path and an optional 1-based first line and\nline count.",
  ReadTextFileResponse: "Result of `fs/read_text_file`: the text.",
  WriteTextFileRequest: "Params of `fs/write_text_file`: an absolute path and the full new text.",
  WriteTextFileResponse: "Result of `fs/write_text_file` (empty).",
  CreateTerminalRequest:
    "Params of `terminal/create`: the command, its arguments, environment, working directory\nand how much output to keep.",
  CreateTerminalResponse: "Result of `terminal/create`: the new terminal's id.",
  TerminalId: "The id of a terminal created by `terminal/create`.",
  TerminalOutputRequest: "Params of `terminal/output`.",
  TerminalOutputResponse:
    "Result of `terminal/output`: the output so far, whether it was truncated, and the exit\nstatus once the command has ended.",
  TerminalExitStatus: "How a terminal's command ended: exit code or signal.",
  WaitForTerminalExitRequest: "Params of `terminal/wait_for_exit`.",
  WaitForTerminalExitResponse: "Result of `terminal/wait_for_exit`: the exit code or signal.",
  KillTerminalRequest: "Params of `terminal/kill`: stop the command, keep the terminal.",
  KillTerminalResponse: "Result of `terminal/kill` (empty).",
  ReleaseTerminalRequest: "Params of `terminal/release`: stop the command and forget the terminal.",
  ReleaseTerminalResponse: "Result of `terminal/release` (empty).",

  // Elicitation
  CreateElicitationRequest:
    "Params of `elicitation/create`: ask the user for structured data (`form`) or send them to\na URL (`url`).",
  CreateElicitationResponse: "The user's answer to an elicitation: `accept`, `decline` or `cancel`.",
  CompleteElicitationNotification: "Params of `elicitation/complete`: a URL elicitation has finished.",
  ElicitationCapabilities: "Which elicitation modes the client supports.",
  ElicitationSchema: "A flat form schema: named properties of simple types.",
  ElicitationPropertySchema: "One field of an elicitation form.",

  // JSON-RPC and extensions
  RequestId: "A JSON-RPC request id: string, integer or `null`.",
  Error: "A JSON-RPC error object.",
  ErrorCode: "A JSON-RPC error code; the protocol names the ones it uses.",
  CancelRequestNotification:
    "Params of `$/cancel_request`: the id of a request the sender no longer needs answered.",
  ExtRequest: "Params of an extension request (any JSON value).",
  ExtResponse: "Result of an extension request (any JSON value).",
  ExtNotification: "Params of an extension notification (any JSON value).",
};
