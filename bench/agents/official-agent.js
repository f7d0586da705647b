// S4 child agent for the "official" column: the official SDK 2.4.0 builder API
// over this process's stdin/stdout. Same protocol as kit-agent.js.
import { Readable, Writable } from "node:stream";
import { PROTOCOL_VERSION, agent, ndJsonStream } from "@agentclientprotocol/sdk";

const text = process.env.BENCH_CHUNK_TEXT ?? "x".repeat(40);

/** Prompt "cpu": one update whose text is this process's CPU time so far, in microseconds. */
function cpuUpdate() {
  const { user, system } = process.cpuUsage();
  return {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text: String(user + system) },
  };
}

const app = agent()
  .onRequest("initialize", () => ({ protocolVersion: PROTOCOL_VERSION, agentCapabilities: {} }))
  .onRequest("session/new", () => ({ sessionId: "bench-session" }))
  .onRequest("session/prompt", async ({ params, client }) => {
    const first = params.prompt[0];
    const command = first?.type === "text" ? first.text : "";
    if (command === "gc") {
      globalThis.gc?.();
      return { stopReason: "end_turn" };
    }
    if (command === "cpu") {
      await client.notify("session/update", { sessionId: params.sessionId, update: cpuUpdate() });
      return { stopReason: "end_turn" };
    }
    const n = Number(command.split(" ")[1] ?? 0);
    for (let i = 0; i < n; i++) {
      await client.notify("session/update", {
        sessionId: params.sessionId,
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
      });
    }
    return { stopReason: "end_turn" };
  })
  .onNotification("session/cancel", () => undefined);

const connection = app.connect(
  ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)),
);
await connection.closed;
