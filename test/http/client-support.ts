/**
 * Test support for the remote client: the official SDK 2.4.0's server transport
 * (`experimental/server` + `experimental/node`) on loopback, serving the official
 * `agent()` playing the shared interop script.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  agent as officialAgent,
  RequestError as TheirRequestError,
  type AgentContext,
} from "@agentclientprotocol/sdk";
import { WebSocketServer } from "ws";
import { AgentScript, type AgentOps } from "../support/interop-scenarios.js";

/** The parts of the official server module used here (it ships no type declarations). */
interface OfficialServerModule {
  AcpServer: new (options: { createAgent: () => unknown }) => {
    close(): Promise<void>;
  };
}
interface OfficialNodeModule {
  createNodeHttpHandler: (server: unknown) => (req: unknown, res: unknown) => void;
  createNodeWebSocketUpgradeHandler: (
    server: unknown,
    wss: WebSocketServer,
  ) => (req: unknown, socket: unknown, head: unknown) => void;
}

const theirError = (code: number, message: string, data: unknown): Error =>
  new TheirRequestError(code, message, data);
const anyParams = (params: unknown): unknown => params;

function officialAgentOps(client: AgentContext): AgentOps {
  return {
    update: (n) => client.notify("session/update", n),
    requestPermission: (p, signal) =>
      client.request(
        "session/request_permission",
        p,
        signal === undefined ? undefined : { cancellationSignal: signal },
      ),
    readTextFile: (p) => client.request("fs/read_text_file", p),
    writeTextFile: (p) => client.request("fs/write_text_file", p),
    createTerminal: (p) => client.createTerminal(p),
    makeError: theirError,
  };
}

/** A running official server: its URL, and the script of each connection's agent. */
export interface OfficialServer {
  readonly url: string;
  readonly scripts: AgentScript[];
  close(): Promise<void>;
}

/** Starts the official server on 127.0.0.1 with a fresh official `agent()` per connection. */
export async function startOfficialServer(): Promise<OfficialServer> {
  const serverPath = "@agentclientprotocol/sdk/experimental/server";
  const nodePath = "@agentclientprotocol/sdk/experimental/node";
  const { AcpServer } = (await import(serverPath)) as OfficialServerModule;
  const { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } = (await import(
    nodePath
  )) as OfficialNodeModule;
  const scripts: AgentScript[] = [];
  const acp = new AcpServer({
    createAgent: () => {
      const script = new AgentScript();
      scripts.push(script);
      return officialAgent({ name: "official-remote-agent" })
        .onRequest("initialize", (ctx) => script.initialize(ctx.params))
        .onRequest("session/new", (ctx) => script.newSession(ctx.params))
        .onRequest("authenticate", () => ({}))
        .onRequest("session/prompt", (ctx) =>
          script.prompt(officialAgentOps(ctx.client), ctx.params),
        )
        .onNotification("session/cancel", (ctx) => {
          script.cancel(ctx.params);
        })
        .onRequest("_example/ping", anyParams, (ctx) =>
          script.ping(ctx.method, ctx.params, "official-remote-agent"),
        );
    },
  });
  const wss = new WebSocketServer({ noServer: true });
  const http: Server = createServer(createNodeHttpHandler(acp));
  http.on("upgrade", createNodeWebSocketUpgradeHandler(acp, wss));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/acp`,
    scripts,
    close: async () => {
      await acp.close();
      wss.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
