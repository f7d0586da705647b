// S4v2 child agent for the "official" column: the official SDK 2.4.0's v2 builder
// (agent() from @agentclientprotocol/sdk/experimental/v2) over this process's stdio. The
// same commands as kit-v2-agent.js; each turn: the prompt's echo, running, the chunks, idle.
import { Readable, Writable } from "node:stream";
import { agent, ndJsonStream } from "@agentclientprotocol/sdk/experimental/v2";

const text = process.env.BENCH_CHUNK_TEXT ?? "x".repeat(40);
let turn = 0;

const connection = agent()
  .onRequest("initialize", () => ({
    protocolVersion: 2,
    info: { name: "bench", version: "0.0.0" },
    capabilities: { session: {} },
  }))
  .onRequest("session/new", () => ({ sessionId: "bench-session" }))
  .onRequest("session/list", () => ({ sessions: [] }))
  .onRequest("session/resume", () => ({}))
  .onRequest("session/close", () => ({}))
  .onRequest("session/prompt", async ({ params, client: cx }) => {
    const sessionId = params.sessionId;
    const messageId = `user-${++turn}`;
    const say = (update) => cx.notify("session/update", { sessionId, update });
    await say({ sessionUpdate: "user_message", messageId, content: params.prompt });
    await say({ sessionUpdate: "state_update", state: "running" });
    const command = params.prompt[0]?.type === "text" ? params.prompt[0].text : "";
    void (async () => {
      const reply = `agent-${turn}`;
      if (command === "gc") globalThis.gc?.();
      else if (command === "cpu") {
        const { user, system } = process.cpuUsage();
        await say({
          sessionUpdate: "agent_message_chunk",
          messageId: reply,
          content: { type: "text", text: String(user + system) },
        });
      } else {
        const n = Number(command.split(" ")[1] ?? 0);
        for (let i = 0; i < n; i++)
          await say({
            sessionUpdate: "agent_message_chunk",
            messageId: reply,
            content: { type: "text", text },
          });
      }
      await say({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
    })();
    return { messageId };
  })
  .onNotification("session/cancel", () => undefined)
  .connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
await connection.closed;
