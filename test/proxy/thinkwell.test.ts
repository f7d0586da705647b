/**
 * `@thinkwell/conductor` 0.5.7 (with its MCP bridge off, as its stdio-MCP crash requires)
 * in front of an acp-kit proxy program, in front of the official SDK's agent: the proxy
 * learns thinkwell's dialect from `initialize` with `_meta.proxy` and answers in kind.
 */
import { Conductor, createChannelPair, fromCommands } from "@thinkwell/conductor";
import { afterEach, describe, expect, it } from "vitest";

const fixture = (name: string): string => new URL(`./fixtures/${name}`, import.meta.url).pathname;

type Message = Record<string, unknown>;

/** A raw JSON-RPC client on thinkwell's channel: requests by id, notifications kept. */
function rawClient(connection: ReturnType<typeof createChannelPair>["left"]) {
  let nextId = 1;
  const waiting = new Map<unknown, (message: Message) => void>();
  const notifications: Message[] = [];
  const asked: Message[] = [];
  void (async () => {
    for await (const raw of connection.messages) {
      const message = raw as unknown as Message;
      if (typeof message.method === "string" && "id" in message) {
        // A request of the agent's (a permission): allowed.
        asked.push(message);
        connection.send({
          jsonrpc: "2.0",
          id: message.id as number,
          result: { outcome: { outcome: "selected", optionId: "allow" } },
        });
      } else if (typeof message.method === "string") {
        notifications.push(message);
      } else {
        waiting.get(message.id)?.(message);
      }
    }
  })();
  return {
    notifications,
    asked,
    request(method: string, params: unknown): Promise<Message> {
      const id = nextId++;
      const answer = new Promise<Message>((resolve) => waiting.set(id, resolve));
      connection.send({ jsonrpc: "2.0", id, method, params } as never);
      return answer;
    },
  };
}

const conductors: Conductor[] = [];
afterEach(async () => {
  for (const conductor of conductors.splice(0)) await conductor.shutdown();
});

describe("@thinkwell/conductor → acp-kit proxy → official agent", () => {
  it("initializes the proxy with _meta.proxy, routes a prompt and a permission request", async () => {
    const pair = createChannelPair();
    const conductor = new Conductor({
      instantiator: fromCommands([
        { command: process.execPath, args: [fixture("kit-proxy.mjs")], env: { PROXY_NAME: "tw" } },
        { command: process.execPath, args: [fixture("official-agent.mjs")] },
      ]),
      mcpBridgeMode: "disabled",
    });
    conductors.push(conductor);
    void conductor.connect({ connect: () => Promise.resolve(pair.right) });
    const client = rawClient(pair.left);
    const init = await client.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    // The proxy answered in thinkwell's dialect, or the conductor would have refused it.
    expect(init).toMatchObject({ result: { agentInfo: { name: "official-agent" } } });
    const session = await client.request("session/new", { cwd: "/tmp", mcpServers: [] });
    const sessionId = (session.result as { sessionId: string }).sessionId;
    const answer = await client.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
    expect(answer).toMatchObject({
      result: { stopReason: "end_turn", _meta: { chosen: "allow", tw: 1 } },
    });
    expect(client.asked.map((m) => m.method)).toEqual(["session/request_permission"]);
    const texts = client.notifications.map(
      (m) => (m.params as { update?: { content?: { text?: string } } }).update?.content?.text ?? "",
    );
    expect(texts).toEqual(["[tw] thinking", "[tw] decided: allow"]);
  });
});
