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
  "InitializeRequest.clientInfo":
    "Who the client is. Optional in v1, but send it: later versions will require it.",
  "InitializeResponse.protocolVersion":
    "The version the connection will use: the client's if the agent supports it, otherwise\nthe agent's newest. A client that cannot speak it should hang up.",
  "InitializeResponse.agentInfo":
    "Who the agent is. Optional in v1, but send it: later versions will require it.",
  ClientCapabilities:
    "What the client offers the agent: file-system access, terminals, authentication and\nelicitation support, and which optional session updates it understands. Anything absent\nis unsupported.",
  "ClientCapabilities.terminal":
    "`true` only if the client implements every `terminal/*` method; there is no partial\nsupport.",
  AgentCapabilities:
    "What the agent supports beyond the baseline: loading sessions, richer prompt content,\nMCP transports, optional session methods, auth extras and provider routing. Anything\nabsent is unsupported.",
  FileSystemCapabilities: "Which `fs/*` requests the client answers.",
  PromptCapabilities:
    "Which prompt content the agent accepts besides `text` and `resource_link` (always\naccepted).",
  "PromptCapabilities.embeddedContext":
    "Whether the client may put `resource` blocks (inlined file contents) in a prompt.",
  McpCapabilities:
    "Which MCP transports the agent can connect to besides stdio: `http`, `sse` and the\nexperimental `acp` tunnel.",
  SessionCapabilities:
    "Which optional session methods and fields the agent implements; each is a marker object,\nabsent or `null` meaning unsupported.",
  Implementation: "Name, optional display title and version of a client or agent program.",
  ProtocolVersion:
    "A major protocol version number (currently 1); it changes only on breaking changes,\nanything else is negotiated through capabilities.",
  AuthMethod:
    'A way to authenticate with the agent: in-protocol (`authenticate`, no `type`) or by\nrunning the agent\'s login command in a terminal (`type: "terminal"`).',
  AuthMethodAgent: "An authentication method the client triggers with `authenticate`.",
  AuthMethodTerminal:
    "An authentication method the client runs as an interactive terminal command (the\nagent's own command with extra arguments and environment).",
  "AuthMethodTerminal.args":
    "Arguments appended to the command the client launches the agent with.",
  "AuthMethodTerminal.env":
    "Variables layered over the agent's launch environment. A plain name-to-value object, not\nthe `EnvVariable[]` list used elsewhere.",
  AuthMethodId: "The id of an authentication method, as advertised in `authMethods`.",
  AuthCapabilities: "Which opt-in kinds of authentication method the client can carry out.",
  "AuthCapabilities.terminal":
    "Set it to `true` only if the client can rerun the agent's launch command in an\ninteractive terminal; the agent may then offer `terminal` methods.",
  AgentAuthCapabilities:
    "Optional authentication methods the agent implements: `auth/status` and `logout`.",
  LogoutCapabilities: "Marker object: present when the agent implements `logout`.",
  AuthenticateRequest: "Params of `authenticate`: which advertised method to use.",
  AuthenticateResponse: "Result of `authenticate` (empty on success).",
  LogoutRequest: "Params of `logout` (empty).",
  LogoutResponse: "Result of `logout` (empty).",

  // Authentication status
  AuthStatusCapabilities: "Marker object: present when the agent implements `auth/status`.",
  AuthStatusRequest:
    "Params of `auth/status` (empty): a read-only question the agent must answer even when\nthe user is not signed in.",
  AuthStatusResponse:
    "Result of `auth/status`: whether sessions can start without signing in, and the accounts\nthe agent has set up.",
  "AuthStatusResponse.state": "The field to act on. Handle an unrecognised value as `unknown`.",
  AuthStatusUpdateNotification:
    "Params of `auth/status_update`: the agent's sign-in state changed; same shape as the\n`auth/status` result.",
  AuthState:
    "Whether the user must sign in: `authenticated`, `unauthenticated`, `not_required` or\n`unknown` (also the reading for values you don't recognise).",
  AuthAccount:
    "A configured account or API key, for display only: never use it as an identifier, and\nkeep it out of logs and telemetry.",

  // Sessions
  NewSessionRequest:
    "Params of `session/new`: the working directory, the MCP servers to connect to and any\nextra workspace roots.",
  "NewSessionRequest.cwd":
    "Absolute path the session works in; relative paths in the session resolve against it.",
  "NewSessionRequest.additionalDirectories":
    "Extra absolute workspace roots that widen what the session may touch; relative paths\nstill resolve against `cwd`. Needs `sessionCapabilities.additionalDirectories`.",
  "NewSessionRequest.systemPrompt":
    "Instructions for the session; send only when the agent advertises\n`sessionCapabilities.systemPrompt`. Omitted keeps the agent's defaults.",
  NewSessionResponse:
    "Result of `session/new`: the new session's id and its initial modes and config options.",
  LoadSessionRequest:
    "Params of `session/load`: the session to restore, with history replayed as updates\nbefore the answer.",
  "LoadSessionRequest.additionalDirectories":
    "When non-empty, the complete set of extra roots for the restored session; it replaces,\nrather than extends, any earlier list.",
  LoadSessionResponse: "Result of `session/load`: the session's modes and config options.",
  ResumeSessionRequest: "Params of `session/resume`: restore a session without replaying history.",
  "ResumeSessionRequest.mcpServers":
    "May be left out here (meaning none), unlike in `session/new` and `session/load`.",
  "ResumeSessionRequest.additionalDirectories":
    "When non-empty, the complete set of extra roots for the resumed session; it replaces,\nrather than extends, any earlier list.",
  ResumeSessionResponse: "Result of `session/resume`: the session's modes and config options.",
  ListSessionsRequest: "Params of `session/list`: an optional `cwd` filter and a page cursor.",
  "ListSessionsRequest.cursor":
    "The previous page's `nextCursor`; leave it out to get the first page.",
  "ListSessionsRequest.archived":
    "Which sessions to include by archive state; omitted means `exclude`. Keep the same value\nwhile paging.",
  ListSessionsResponse:
    "Result of `session/list`: one page of sessions and the cursor to the next.",
  "ListSessionsResponse.nextCursor":
    "Pass it back as `cursor` for the next page; absent on the last page. Treat it as opaque.",
  SessionInfo:
    "What `session/list` says about a session: id, working directory, title, last activity.",
  "SessionInfo.archived":
    "Archive state; always present when the agent supports archiving, otherwise not reported.",
  CloseSessionRequest: "Params of `session/close`: the session to cancel and release.",
  CloseSessionResponse: "Result of `session/close` (empty).",
  DeleteSessionRequest: "Params of `session/delete`: the session to forget.",
  DeleteSessionResponse: "Result of `session/delete` (empty).",
  ForkSessionRequest:
    "Params of `session/fork`: start a new session that begins with a copy of an existing\none's context, leaving the original untouched.",
  ForkSessionResponse:
    "Result of `session/fork`: the forked session's id, modes and config options.",
  ArchiveSessionRequest:
    "Params of `session/archive`: hide a session from default listings, keeping its id and\nhistory. An active session is closed first.",
  ArchiveSessionResponse: "Result of `session/archive` (empty).",
  UnarchiveSessionRequest:
    "Params of `session/unarchive`: make an archived session listed again. It does not load\nor resume it.",
  UnarchiveSessionResponse: "Result of `session/unarchive` (empty).",
  SessionArchiveFilter:
    "How `session/list` treats archived sessions: `exclude` (default), `include` or `only`.",
  SessionStatusRequest:
    "Params of `session/status`: ask, without side effects, whether the agent has a session\nin memory.",
  SessionStatusResponse:
    "Result of `session/status`: a point-in-time reading that may go stale at once.",
  "SessionStatusResponse.status": "Handle an unrecognised value as `saved`.",
  SessionStatus:
    "`open` (in memory, though this connection may still need to load or resume it) or\n`saved` (known, must be loaded or resumed first).",
  SetSessionTitleRequest:
    "Params of `session/set_title`: give any listed session a user-chosen title; it need not\nbe active on this connection.",
  SetSessionTitleResponse: "Result of `session/set_title`: the title as the agent stored it.",
  "SetSessionTitleResponse.title":
    "Show this rather than the title you sent: the agent may have normalised it.",
  SystemPrompt:
    "Client-supplied instructions for a session, combined with or replacing the agent's\nown; an agent that cannot honour them fails the request.",
  "SystemPrompt.content": "The instructions. Only `text` blocks are allowed for now.",
  SystemPromptMode:
    "How a client system prompt is applied: `append` to the agent's instructions or\n`override` its built-in defaults (tools and permissions stay as they are).",
  SessionId: "An opaque session identifier chosen by the agent.",
  McpServer:
    "An MCP server for the agent to connect to: stdio (no `type`), `http`, `sse` or `acp`.",
  McpServerStdio: "An MCP server the agent starts as a local process.",
  "McpServerStdio.args": "Required even when empty: send `[]`.",
  "McpServerStdio.env": "Required even when empty: send `[]`.",
  McpServerHttp: "An MCP server reached over streamable HTTP.",
  McpServerSse: "An MCP server reached over server-sent events (a deprecated MCP transport).",
  McpServerAcp:
    "An MCP server hosted by another ACP component (such as the client or a proxy) and\nreached by tunnelling MCP traffic through `mcp/message`.",
  EnvVariable: "One environment variable: name and value.",
  HttpHeader: "One HTTP header: name and value.",

  // Session capabilities (what the agent advertises)
  SessionListCapabilities: "Marker object: present when the agent implements `session/list`.",
  SessionDeleteCapabilities: "Marker object: present when the agent implements `session/delete`.",
  SessionResumeCapabilities: "Marker object: present when the agent implements `session/resume`.",
  SessionCloseCapabilities: "Marker object: present when the agent implements `session/close`.",
  SessionForkCapabilities: "Marker object: present when the agent implements `session/fork`.",
  SessionStatusCapabilities: "Marker object: present when the agent implements `session/status`.",
  SessionTitleCapabilities:
    "Marker object: present when clients may rename sessions with `session/set_title`.\nTitles are reported with or without it.",
  SessionArchiveCapabilities:
    "Marker object: present when the agent implements `session/archive`, `session/unarchive`\nand the `archived` listing filter.",
  SessionAdditionalDirectoriesCapabilities:
    "Marker object: present when session requests may carry `additionalDirectories`.",
  SessionSystemPromptCapabilities:
    "Present when session requests may carry a `systemPrompt`; `append` always works, other\nmodes are listed in `mode`.",
  SessionSystemPromptModeCapabilities: "System prompt modes the agent accepts beyond `append`.",
  SessionSystemPromptOverrideCapabilities:
    "Marker object: present when the agent lets a system prompt replace its default\ninstructions (`override`).",

  // Client capabilities for session updates
  ClientSessionCapabilities:
    "Which optional session features the client handles: compaction updates, boolean config\noptions and notices.",
  CompactionCapabilities:
    "Marker object: the client handles `compaction_update` and `compaction_summary_chunk`.",
  SessionConfigOptionsCapabilities: "Which extra kinds of config option the client can display.",
  BooleanConfigOptionCapabilities:
    'Marker object: the client can show `type: "boolean"` config options and set them.',
  NoticeCapabilities: "Marker object: the client can show `notice` updates to the user.",
  PlanCapabilities:
    "Marker object: the client handles the `plan_update` and `plan_removed` session updates.",
  SubagentCapabilities:
    "Marker object: the client understands child sessions (`subagent_update`) and messages\nbetween sessions. Required before the agent sends either.",

  // Modes and config options
  SessionModeState: "The session's current mode and the modes it can switch to.",
  SessionMode: "One mode a session can be in (for example `ask` or `code`).",
  SessionModeId: "The id of a session mode.",
  SetSessionModeRequest: "Params of `session/set_mode`: the session and the mode to switch to.",
  SetSessionModeResponse: "Result of `session/set_mode` (empty).",
  SessionConfigOption:
    "A setting of the session the client can show and change: a select or a boolean, with\nits current value.",
  SessionConfigId: "The id of a config option, used with `session/set_config_option`.",
  SessionConfigValueId: "The id of one allowed value of a select config option.",
  SessionConfigGroupId: "The id of a group of values in a select config option.",
  SessionConfigSelect: "The select form of a config option: its value and the allowed values.",
  SessionConfigBoolean: "The boolean form of a config option.",
  SessionConfigSelectOption: "One allowed value of a select config option.",
  SessionConfigSelectGroup: "A named group of allowed values of a select config option.",
  SessionConfigSelectOptions: "The allowed values of a select config option, flat or grouped.",
  SessionConfigOptionCategory:
    "A UI hint for a config option (`mode`, `model`, `model_config`, `thought_level`, or a\ncustom `_`-prefixed name); never needed for correctness.",
  SetSessionConfigOptionRequest:
    'Params of `session/set_config_option`: a select value id, or a boolean with\n`type: "boolean"`.',
  "SetSessionConfigOptionRequest.value":
    'The new value: a `SessionConfigValueId` for a select, or `true`/`false` when `type` is\n`"boolean"`.',
  SetSessionConfigOptionResponse:
    "Result of `session/set_config_option`: the complete set of config options.",

  // Prompt turns
  PromptRequest:
    "Params of `session/prompt`: the session and the user's message as content blocks.",
  "PromptRequest.prompt":
    "The user's message. `text` and `resource_link` always work; other block types only if\n`PromptCapabilities` allows them.",
  PromptResponse: "Result of `session/prompt`: why the turn ended.",
  StopReason:
    "Why a prompt turn ended: `end_turn`, `max_tokens`, `max_turn_requests`, `refusal` or\n`cancelled`.",
  Usage:
    "Token counts: input, output and total, plus optional reasoning and cache read/write\nfigures. The schema leaves unclear whether they cover one turn or the whole session.",
  CancelNotification: "Params of `session/cancel`: the session whose running turn should stop.",
  SessionNotification: "Params of `session/update`: the session and one update for it.",
  SessionUpdate:
    "One streamed change to a session, discriminated by `sessionUpdate`: message chunks, tool\ncalls, plans, commands, mode, config, info, usage, notices, compactions and subagents.",
  ContentChunk: "A piece of a user, agent or thought message, with an optional message id.",
  "ContentChunk.messageId":
    "Chunks with equal ids belong to one message; a different id starts a new one. Optional\nand opaque.",
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
  "Plan.entries":
    "Every step with its current status, each time; drop the old list and keep this one.",
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
  "SessionInfoUpdate.title":
    "Left out: keep the title. `null`: remove it. A string: the new title.",
  "SessionInfoUpdate.updatedAt":
    "Left out: keep it. `null`: remove it. A string: the new ISO 8601 last-activity time.",
  UsageUpdate: "Context window usage (tokens used and available) and cumulative cost.",
  Cost: "A running total for the session, in a currency (ISO 4217) or a non-money unit like\ncredits.",
  "Cost.amount": "Cumulative for the whole session, not for the latest turn.",
  Notice:
    "A `notice` update: a short message for the user with a severity. Live only, not history;\nsent only to clients that opted in, and may never be seen.",
  NoticeSeverity: "How prominently to show a notice: `info`, `warning` or `error`.",
  CompactionId: "An agent-chosen id for one compaction of a session's context.",
  CompactionStatus:
    "Where a context compaction stands: `in_progress`, `completed`, `failed` or `cancelled`.",
  CompactionUpdate:
    "A `compaction_update`: creates a compaction entry at this point of the timeline, or\npatches the one with the same id.",
  "CompactionUpdate.summary":
    "Left out: unchanged. `null` or `[]`: cleared. Otherwise the whole summary, replacing the\nold one.",
  CompactionSummaryChunk:
    "A `compaction_summary_chunk`: adds one content block to the end of a compaction's\nsummary (an unseen id starts an in-progress compaction).",

  // Plans by id
  PlanId: "An id naming one plan within a session, for `plan_update` and `plan_removed`.",
  PlanUpdate: "A `plan_update`: new content for the plan with the given id.",
  PlanRemoved: "A `plan_removed`: the plan with the given id is gone.",
  PlanUpdateContent:
    "The body of a plan, discriminated by `type`: a list of steps (`items`), a file (`file`)\nor Markdown text (`markdown`).",
  PlanItems: "A plan as a list of steps; each update carries the full list.",
  PlanFile: "A plan kept in a file, given by URI.",
  PlanMarkdown: "A plan written as Markdown text.",

  // Subagents and messages between sessions
  SubagentUpdate:
    "A `subagent_update` on a parent session: announces a child session it owns, or patches\nthe child's display info, state, capabilities or directories (left out: unchanged; `null`:\ncleared).",
  "SubagentUpdate.capabilities":
    "Left out: unchanged. `null`: the client may no longer change the child. Until first\nsent, it may not change it at all.",
  "SubagentUpdate.state":
    "Left out: unchanged. `null`: current activity unknown (not idle). A value replaces the\nprevious snapshot entirely.",
  SubagentSessionCapabilities:
    "What the client may do to one child session; nothing is allowed unless listed here,\nwhatever ordinary sessions support.",
  SessionCancelCapabilities:
    "Marker object: the client may interrupt what a child session is doing while keeping the\nsession alive.",
  StateUpdate:
    "A snapshot of a child session's foreground work, discriminated by `state`: `running`,\n`idle`, `requires_action` or `unknown`.",
  RunningStateUpdate: "The child is busy with foreground work.",
  IdleStateUpdate:
    "The child finished its foreground work and can take another prompt; it is not ended.",
  "IdleStateUpdate.stopReason":
    "Why the work stopped: a `StopReason` value, or `error` with an `error` field. Omitted,\n`null` or malformed means not reported.",
  RequiresActionStateUpdate: "The child cannot continue until the user does something.",
  UnknownStateUpdate:
    "The agent has lost sight of what the child is doing. Stop showing the last state as\ncurrent; the work itself is not affected.",
  ErrorStopReason:
    "Details for an `error` stop reason: a JSON-RPC error object describing what went wrong,\nwhen the agent supplies one.",
  SessionMessage:
    "A `session_message`: creates or patches a message sent from one session to another, as\nit appears in this session's transcript.",
  "SessionMessage.content":
    "Left out: unchanged. `null` or `[]`: cleared. A non-empty array replaces all content.",
  SessionMessageChunk:
    "A `session_message_chunk`: adds one content block to the end of a message between\nsessions.",

  // Tool calls
  ToolCall: "A tool call the agent is about to make or is making.",
  "ToolCall.locations": "Files the call reads or edits, so the client can follow along.",
  "ToolCall.rawInput":
    "The tool's input as the agent saw it: any JSON value, not necessarily an object.\nFor display or debugging.",
  ToolCallUpdate:
    "A change to a tool call: only `toolCallId` is required; `content` and `locations`\nreplace the previous lists when present.",
  "ToolCallUpdate.content": "When present, the complete new content list; it is not appended.",
  "ToolCallUpdate.locations": "When present, the complete new location list; it is not appended.",
  ToolCallId: "An id, unique within the session, naming a tool call.",
  ToolKind: "What kind of work a tool call does, for the client's icon and grouping.",
  ToolCallStatus: "Where a tool call stands: `pending`, `in_progress`, `completed` or `failed`.",
  ToolCallContent:
    "Content produced by a tool call, discriminated by `type`: regular `content`, a `diff`\nor a live `terminal`.",
  Content: "Regular content shown for a tool call.",
  Diff: "A change to a file: old and new text for an absolute path (no old text for a new file).",
  "Diff.oldText": "The text before the change; omitted or `null` when the file is new.",
  Terminal: "A terminal (created with `terminal/create`) embedded in a tool call.",
  ToolCallLocation: "A file (and optional line) a tool call is working on.",
  "ToolCallLocation.line": "Line number, counting from 1.",

  // Permissions
  RequestPermissionRequest:
    "Params of `session/request_permission`: the tool call in question and the options to\nchoose from.",
  "RequestPermissionRequest.toolCall":
    "The call in update form (only `toolCallId` required), usually one already reported.",
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
  "ReadTextFileRequest.line":
    "First line to return, counting from 1; omitted means the top of the file.",
  "ReadTextFileRequest.limit":
    "Most lines to return (a line count, not bytes); omitted means through the end.",
  ReadTextFileResponse: "Result of `fs/read_text_file`: the text.",
  WriteTextFileRequest: "Params of `fs/write_text_file`: an absolute path and the full new text.",
  "WriteTextFileRequest.content":
    "The whole new file; the client creates or overwrites it, no patching.",
  WriteTextFileResponse: "Result of `fs/write_text_file` (empty).",
  CreateTerminalRequest:
    "Params of `terminal/create`: the command, its arguments, environment, working directory\nand how much output to keep.",
  "CreateTerminalRequest.outputByteLimit":
    "Most output bytes to keep. Past it, the client drops the oldest output (at a character\nboundary), so the newest bytes are what remain.",
  CreateTerminalResponse: "Result of `terminal/create`: the new terminal's id.",
  TerminalId: "The id of a terminal created by `terminal/create`.",
  TerminalOutputRequest: "Params of `terminal/output`.",
  TerminalOutputResponse:
    "Result of `terminal/output`: the output so far, whether it was truncated, and the exit\nstatus once the command has ended.",
  "TerminalOutputResponse.truncated":
    "`true` if older output was dropped to stay within `outputByteLimit`.",
  "TerminalOutputResponse.exitStatus": "Present only once the command has ended.",
  TerminalExitStatus: "How a terminal's command ended: exit code or signal.",
  "TerminalExitStatus.exitCode": "The process's exit code; `null` when a signal ended it.",
  "TerminalExitStatus.signal": "The signal that ended the process; `null` on a normal exit.",
  WaitForTerminalExitRequest: "Params of `terminal/wait_for_exit`.",
  WaitForTerminalExitResponse: "Result of `terminal/wait_for_exit`: the exit code or signal.",
  KillTerminalRequest: "Params of `terminal/kill`: stop the command, keep the terminal.",
  KillTerminalResponse: "Result of `terminal/kill` (empty).",
  ReleaseTerminalRequest: "Params of `terminal/release`: stop the command and forget the terminal.",
  ReleaseTerminalResponse: "Result of `terminal/release` (empty).",

  // Elicitation
  CreateElicitationRequest:
    "Params of `elicitation/create`: ask the user for structured data (`form`) or send them to\na URL (`url`).",
  CreateElicitationResponse:
    "The user's answer to an elicitation: `accept`, `decline` or `cancel`.",
  CompleteElicitationNotification:
    "Params of `elicitation/complete`: a URL elicitation has finished.",
  ElicitationCapabilities: "Which elicitation modes the client supports.",
  ElicitationFormCapabilities: "Marker object: the client can render `form` elicitations.",
  ElicitationUrlCapabilities: "Marker object: the client can handle `url` elicitations.",
  ElicitationFormMode:
    "The `form` variant of an elicitation: a schema for the client to render as a form, plus\nits session or request scope.",
  ElicitationUrlMode:
    "The `url` variant of an elicitation: a page to send the user to, with an id that\n`elicitation/complete` later reports on.",
  ElicitationId: "An id naming a URL elicitation, echoed by `elicitation/complete`.",
  ElicitationSessionScope:
    "Scopes an elicitation to a session and, optionally, to one of its tool calls.",
  "ElicitationSessionScope.toolCallId":
    "The tool call that needs the input (say, on behalf of an MCP server); omitted or `null`\nscopes it to the whole session.",
  ElicitationRequestScope:
    "Scopes an elicitation to an in-flight request rather than a session, e.g. during\nauthentication before any session exists.",
  ElicitationSchema: "A flat form schema: named properties of simple types.",
  ElicitationSchemaType: "The root type of an elicitation schema; always `object`.",
  ElicitationPropertySchema:
    "One field of an elicitation form, discriminated by `type`: `string`, `number`, `integer`,\n`boolean` or `array` (multi-select).",
  StringPropertySchema:
    "A text form field, with optional length, pattern and format limits; with `enum` or\n`oneOf` it becomes a single-choice field.",
  NumberPropertySchema: "A number form field (fractions allowed), with optional inclusive bounds.",
  IntegerPropertySchema: "A whole-number form field, with optional inclusive bounds.",
  BooleanPropertySchema: "A yes/no form field.",
  MultiSelectPropertySchema:
    "A form field whose answer is a list of strings picked from fixed values, with optional\nminimum and maximum counts.",
  MultiSelectItems:
    'The choices of a multi-select field: plain strings (`type: "string"`) or titled\nchoices (`anyOf`, no `type`).',
  StringMultiSelectItems: "Multi-select choices given as plain strings.",
  TitledMultiSelectItems: "Multi-select choices that each carry a display title.",
  EnumOption:
    "One choice with a display title: the value sent back, its label and optional help text.",
  StringFormat: "A format hint for a text field: `email`, `uri`, `date` or `date-time`.",
  ElicitationAcceptAction: "The `accept` answer: the values the user entered, if any.",
  "ElicitationAcceptAction.content":
    "Answers keyed by form property name, shaped by the requested schema.",
  ElicitationContentValue:
    "A value in an accepted form: string, integer, number, boolean or list of strings.",

  // LLM providers
  ProvidersCapabilities:
    "Marker object: present when the agent implements `providers/list`, `providers/set` and\n`providers/disable`.",
  ListProvidersRequest: "Params of `providers/list` (empty).",
  ListProvidersResponse:
    "Result of `providers/list`: each configurable LLM provider and its routing.",
  ProviderInfo:
    "One LLM provider the client may reroute: its id, the APIs it can speak, whether it is\nmandatory, and its current endpoint.",
  "ProviderInfo.required": "When `true`, the client must never call `providers/disable` on it.",
  ProviderId: "The id of an LLM provider slot, such as `main` or `openai`.",
  LlmProtocol:
    "The API dialect a provider speaks: `anthropic`, `openai`, `azure`, `vertex`, `bedrock`,\nor another (`_`-prefixed for custom ones).",
  ProviderCurrentConfig: "Where a provider sends requests now: its API dialect and base URL.",
  SetProviderRequest:
    "Params of `providers/set`: point a provider at an endpoint; the whole configuration is\nreplaced.",
  "SetProviderRequest.headers":
    "The complete header map, credentials included; it replaces earlier headers.",
  SetProviderResponse: "Result of `providers/set` (empty).",
  DisableProviderRequest: "Params of `providers/disable`: the provider to switch off.",
  DisableProviderResponse: "Result of `providers/disable` (empty).",

  // MCP over ACP
  MessageMcpRequest:
    "Params of `mcp/message` as a request: one MCP request carried to an `acp`-transport MCP\nserver.",
  MessageMcpNotification:
    "Params of `mcp/message` as a notification: an MCP message tied to a running MCP request\n(acknowledgements, subscription updates).",
  MessageMcpResponse:
    "Result of `mcp/message`: the MCP request's own `result` or `error`; ACP-level errors are\nkept for transport failures.",
  McpError: "An error returned by the MCP server itself, separate from any ACP error.",
  McpServerAcpId:
    "An opaque id, picked by the component offering it, that names an `acp`-transport MCP\nserver for `mcp/message` routing.",
  McpRequestId:
    "The caller's id for an MCP request inside `mcp/message`; not the outer JSON-RPC id, and\nproxies keep it unchanged.",

  // Proxy chains
  InitializeProxyRequest:
    "Params of `proxy/initialize`: what a conductor sends instead of `initialize` to every\ncomponent that is not last in the chain; same shape as `initialize`.",
  InitializeProxyResponse:
    "Result of `proxy/initialize`: same shape as `initialize`, describing the chain from the\nproxy onward; the proxy must not alter `protocolVersion`.",
  ProxySuccessorRequest:
    "Params of `proxy/successor` as a request: a request passed along the chain, as method\nand params.",
  "ProxySuccessorRequest.params":
    "Forwarded untouched; omitted or `null` means none, otherwise an object or array.",
  ProxySuccessorResponse: "Result of `proxy/successor`: exactly what the wrapped request returned.",
  ProxySuccessorNotification:
    "Params of `proxy/successor` as a notification: a notification passed along the chain.",

  // JSON-RPC and extensions
  RequestId: "A JSON-RPC request id: string, integer or `null`.",
  Error: "A JSON-RPC error object.",
  ErrorCode:
    "A JSON-RPC error code: the standard ones, `-32800` (cancelled), `-32000` (auth needed),\n`-32002` (not found), or any other integer.",
  CancelRequestNotification:
    "Params of `$/cancel_request`: the id of a request the sender no longer needs answered.",
  ExtRequest: "Params of an extension request (any JSON value).",
  ExtResponse: "Result of an extension request (any JSON value).",
  ExtNotification: "Params of an extension notification (any JSON value).",

  // JSON-RPC envelopes (schema-only, no validators)
  AgentRequest: "A JSON-RPC request sent by the agent to the client, as the schema models it.",
  AgentResponse: "A JSON-RPC response sent by the agent to the client, as the schema models it.",
  AgentNotification:
    "A JSON-RPC notification sent by the agent to the client, as the schema models it.",
  ClientRequest: "A JSON-RPC request sent by the client to the agent, as the schema models it.",
  ClientResponse: "A JSON-RPC response sent by the client to the agent, as the schema models it.",
  ClientNotification:
    "A JSON-RPC notification sent by the client to the agent, as the schema models it.",
  ProxyRequest: "A JSON-RPC request between a conductor and a proxy, as the schema models it.",
  ProxyResponse: "A JSON-RPC response between a conductor and a proxy, as the schema models it.",
  ProxyNotification:
    "A JSON-RPC notification between a conductor and a proxy, as the schema models it.",
};
