/**
 * `acp-kit/mcp`: MCP-over-ACP, the request-scoped binding of the official SDK 2.4.0 (MCP
 * 2026-07-28 carried in `mcp/message`), on both sides and for both protocol versions. A
 * client (or proxy) provides MCP servers with {@link McpProvider}; an agent calls them
 * with {@link McpCaller}. The binding is an unstable draft and moves with it (see
 * docs/mcp.md). Runtime-neutral: nothing from `node:`, and no MCP SDK at run time.
 *
 * ```ts
 * import { McpProvider, fromFetchHandler } from "acp-kit/mcp";
 *
 * const mcp = new McpProvider();
 * const agent = new ClientSideConnection(
 *   (agent) => ({ ...myClient, unstable_messageMcp: mcp.attach(agent) }),
 *   stream,
 * );
 * const tools = mcp.register({ name: "tools", handler: fromFetchHandler(mcpHandler) });
 * await agent.newSession({ cwd, mcpServers: [tools.declaration] });
 * ```
 *
 * @module
 */
export {
  MCP_MESSAGE_METHOD,
  MCP_PROTOCOL_VERSION,
  MCP_META_PROTOCOL_VERSION,
  MCP_META_CLIENT_CAPABILITIES,
  MCP_META_CLIENT_INFO,
  McpBindingErrorCodes,
  McpProtocolError,
  parseMcpOutcome,
  withMcpRequestMeta,
  isAcpMcpServer,
  acpMcpServers,
  agentMcpTransports,
  type McpOutcome,
  type McpErrorObject,
  type McpServerAcpDeclaration,
  type McpClientInfo,
  type McpRequestMetaOptions,
} from "./binding.js";
export {
  McpProvider,
  McpServerRegistration,
  DEFAULT_MAX_ACTIVE_MCP_REQUESTS,
  type McpNotificationSink,
  type McpRequestContext,
  type McpRequestHandler,
  type McpServerOptions,
  type McpServeOptions,
} from "./provider.js";
export {
  McpCaller,
  type McpRequestSender,
  type McpNotification,
  type McpCallerOptions,
  type McpCallOptions,
} from "./caller.js";
export {
  fromFetchHandler,
  type McpFetchHandler,
  type McpFetchHandlerObject,
} from "./fetch-handler.js";
