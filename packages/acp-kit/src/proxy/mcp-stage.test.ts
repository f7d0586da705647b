import { describe, expect, it } from "vitest";
import type { McpServer } from "../schema/types.gen.js";
import type { Channel, ChannelHandlers } from "./channel.js";
import { withMcpStage, type ConductorMcpBridge } from "./mcp-stage.js";

/** An agent's channel answering `initialize` with `init` and recording what it gets. */
function agentChannel(init: unknown) {
  const got: { method: string; params: unknown }[] = [];
  let handlers: ChannelHandlers | undefined;
  const channel: Channel = {
    request: (method, params) => {
      got.push({ method, params });
      return Promise.resolve(method === "initialize" ? init : { sessionId: "s-1" });
    },
    notify: (method, params) => {
      got.push({ method, params });
      return Promise.resolve();
    },
    serve: (h) => {
      handlers = h;
    },
  };
  return { channel, got, handlers: () => handlers };
}

const ACP = { type: "acp", name: "tools", serverId: "tools:1" } as const;
const HTTP: McpServer = {
  type: "http",
  name: "tools",
  url: "http://127.0.0.1:1/mcp-x",
  headers: [],
};
const signal = new AbortController().signal;

describe("the conductor's MCP stage", () => {
  it("v2: advertises session.mcp.acp, rewrites acp entries, sends the bridge's requests up, routes notifications", async () => {
    const agent = agentChannel({
      protocolVersion: 2,
      capabilities: { session: { mcp: { http: {} } } },
    });
    const adapted: (readonly McpServer[])[] = [];
    let closed = false;
    const upstream: { method: string; params: unknown }[] = [];
    const stage = withMcpStage(agent.channel, (caller) => {
      const bridge: ConductorMcpBridge = {
        adaptServers: async (servers) => {
          adapted.push(servers);
          // The bridge's MCP request goes up the chain, as mcp/message.
          const heard: unknown[] = [];
          const pending = caller.request("tools:1", "tools/list", undefined, {
            requestId: "r-1",
            onNotification: (n) => heard.push(n.method),
          });
          await stage.notify("mcp/message", {
            serverId: "tools:1",
            requestId: "r-1",
            method: "notifications/progress",
            params: {},
          });
          expect(await pending).toEqual({ result: { tools: [] } });
          expect(heard).toEqual(["notifications/progress"]);
          return servers.map((s) => ("type" in s && s.type === "acp" ? HTTP : s));
        },
        close: () => {
          closed = true;
          return Promise.resolve();
        },
      };
      return bridge;
    });
    stage.serve({
      request: (method, params) => {
        upstream.push({ method, params });
        return { result: { tools: [] } };
      },
      notification: () => undefined,
    });
    expect(agent.handlers()).toBeDefined();
    const init = await stage.request("initialize", { protocolVersion: 2 }, signal);
    expect(init).toEqual({
      protocolVersion: 2,
      capabilities: { session: { mcp: { http: {}, acp: {} } } },
    });
    await stage.request("session/new", { cwd: "/", mcpServers: [ACP] }, signal);
    expect(adapted).toEqual([[ACP]]);
    expect(agent.got.at(-1)).toEqual({
      method: "session/new",
      params: { cwd: "/", mcpServers: [HTTP] },
    });
    expect(upstream).toEqual([
      {
        method: "mcp/message",
        params: expect.objectContaining({
          serverId: "tools:1",
          requestId: "r-1",
          method: "tools/list",
        }) as unknown,
      },
    ]);
    // The provider's notification went to the request, not to the agent.
    expect(agent.got.some((m) => m.method === "mcp/message")).toBe(false);
    await stage.close();
    expect(closed).toBe(true);
    // Once closed, nothing more is bridged.
    await expect(
      stage.request("session/new", { cwd: "/", mcpServers: [ACP] }, signal),
    ).rejects.toMatchObject({ code: -32603 });
    expect(adapted).toHaveLength(1);
  });

  it("native acp: nothing changes, mcp/message notifications reach the agent", async () => {
    const init = { protocolVersion: 1, agentCapabilities: { mcpCapabilities: { acp: true } } };
    const agent = agentChannel(init);
    const stage = withMcpStage(agent.channel, () => {
      throw new Error("no bridge for a native agent");
    });
    expect(await stage.request("initialize", {}, signal)).toBe(init);
    await stage.request("session/load", { sessionId: "s", cwd: "/", mcpServers: [ACP] }, signal);
    expect(agent.got.at(-1)?.params).toEqual({ sessionId: "s", cwd: "/", mcpServers: [ACP] });
    await stage.notify("mcp/message", { serverId: "x", requestId: "r", method: "m" });
    expect(agent.got.at(-1)?.method).toBe("mcp/message");
  });

  it("v2 without http: acp entries refused with -32602 {type: acp} on every session method", async () => {
    const agent = agentChannel({
      protocolVersion: 2,
      capabilities: { session: { mcp: { stdio: {} } } },
    });
    const stage = withMcpStage(agent.channel, () => {
      throw new Error("no bridge without http");
    });
    expect(await stage.request("initialize", {}, signal)).toEqual({
      protocolVersion: 2,
      capabilities: { session: { mcp: { stdio: {} } } },
    });
    for (const method of ["session/new", "session/load", "session/resume", "session/fork"]) {
      await expect(
        stage.request(method, { sessionId: "s", cwd: "/", mcpServers: [ACP] }, signal),
      ).rejects.toMatchObject({ code: -32602, data: { type: "acp" } });
    }
    expect(agent.got.map((m) => m.method)).toEqual(["initialize"]);
  });

  it("an agent with neither acp nor http gets stdio entries running the shim (typed for v2), and acp is advertised; without the shim it is refused", async () => {
    const shim = { command: "/usr/bin/node", args: ["cli.js", "mcp-shim"] };
    const stdioOf = (servers: readonly McpServer[], given?: { command: string }) =>
      servers.map((s) =>
        "type" in s && s.type === "acp"
          ? {
              name: s.name,
              command: given?.command ?? "?",
              args: ["--url", "u", "--token-env", "T"],
              env: [{ name: "T", value: "t" }],
            }
          : s,
      );
    for (const version of [1, 2] as const) {
      const init =
        version === 1
          ? { protocolVersion: 1, agentCapabilities: { mcpCapabilities: {} } }
          : { protocolVersion: 2, capabilities: { session: { mcp: { stdio: {} } } } };
      const agent = agentChannel(init);
      const shims: unknown[] = [];
      const stage = withMcpStage(
        agent.channel,
        () => ({
          adaptServers: (servers, given) => {
            shims.push(given);
            return Promise.resolve(stdioOf(servers, given) as McpServer[]);
          },
          close: () => Promise.resolve(),
        }),
        shim,
      );
      stage.serve({ request: () => ({}), notification: () => undefined });
      const answer = (await stage.request("initialize", { protocolVersion: version }, signal)) as {
        agentCapabilities?: { mcpCapabilities?: unknown };
        capabilities?: { session?: { mcp?: unknown } };
      };
      if (version === 1) expect(answer.agentCapabilities?.mcpCapabilities).toEqual({ acp: true });
      else expect(answer.capabilities?.session?.mcp).toEqual({ stdio: {}, acp: {} });
      await stage.request("session/new", { cwd: "/", mcpServers: [ACP] }, signal);
      expect(shims).toEqual([shim]);
      const sent = agent.got.find((g) => g.method === "session/new")?.params as {
        mcpServers: unknown[];
      };
      expect(sent.mcpServers).toEqual([
        {
          ...(version === 2 ? { type: "stdio" } : {}),
          name: "tools",
          command: "/usr/bin/node",
          args: ["--url", "u", "--token-env", "T"],
          env: [{ name: "T", value: "t" }],
        },
      ]);
      await stage.close();
    }
    // The same agent without a shim: nothing advertised, the declaration refused.
    const agent = agentChannel({ protocolVersion: 1, agentCapabilities: { mcpCapabilities: {} } });
    const stage = withMcpStage(agent.channel, () => ({
      adaptServers: (servers) => Promise.resolve(servers),
      close: () => Promise.resolve(),
    }));
    stage.serve({ request: () => ({}), notification: () => undefined });
    await stage.request("initialize", { protocolVersion: 1 }, signal);
    await expect(
      stage.request("session/new", { cwd: "/", mcpServers: [ACP] }, signal),
    ).rejects.toMatchObject({ code: -32602, data: { type: "acp" } });
  });
});
