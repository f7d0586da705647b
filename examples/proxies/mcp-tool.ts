/**
 * A proxy that adds a client-side MCP tool to every session: `word_count`, served by the
 * proxy itself over MCP-over-ACP (`mcp/message`), declared (`type: "acp"`) in each
 * session it forwards. The agent must support MCP-over-ACP (`mcpCapabilities.acp`).
 *
 *   acp-kit conductor agent "node --import tsx examples/proxies/mcp-tool.ts" "my-agent"
 */
import { runProxy } from "acp-kit/node";
import { McpProtocolError, MCP_PROTOCOL_VERSION } from "acp-kit/mcp";
import { defineProxy } from "acp-kit/proxy";

const proxy = defineProxy();
proxy.provideMcpServer({
  name: "proxy-tools",
  // MCP 2026-07-28: no initialize; discover, list and call are plain requests.
  handler: ({ method, params }) => {
    switch (method) {
      case "server/discover":
        return {
          result: {
            supportedVersions: [MCP_PROTOCOL_VERSION],
            capabilities: { tools: {} },
            _meta: {
              "io.modelcontextprotocol/serverInfo": { name: "proxy-tools", version: "1.0.0" },
            },
          },
        };
      case "tools/list":
        return {
          result: {
            tools: [
              {
                name: "word_count",
                description: "Counts the words of a text",
                inputSchema: {
                  type: "object",
                  properties: { text: { type: "string" } },
                  required: ["text"],
                },
              },
            ],
          },
        };
      case "tools/call": {
        const args = (params?.arguments ?? {}) as { text?: unknown };
        if (params?.name !== "word_count" || typeof args.text !== "string")
          throw new McpProtocolError(-32602, "word_count needs { text }");
        const words = args.text.split(/\s+/).filter((word) => word !== "").length;
        return { result: { content: [{ type: "text", text: String(words) }] } };
      }
      default:
        throw new McpProtocolError(-32601, `Method not found: ${method}`);
    }
  },
});
await runProxy(proxy);
