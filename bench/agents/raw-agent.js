// S4 child agent for the "raw" column: the bare ndjson loop (../lib/raw-peer.js)
// over this process's stdin/stdout. Same protocol as kit-agent.js.
import { Readable, Writable } from "node:stream";
import { RawPeer } from "../lib/raw-peer.js";

const text = process.env.BENCH_CHUNK_TEXT ?? "x".repeat(40);

/** Prompt "cpu": one update whose text is this process's CPU time so far, in microseconds. */
function cpuUpdate() {
  const { user, system } = process.cpuUsage();
  return {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text: String(user + system) },
  };
}

const peer = new RawPeer(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin), {
  onRequest: async (method, params) => {
    switch (method) {
      case "initialize":
        return { protocolVersion: 1, agentCapabilities: {} };
      case "session/new":
        return { sessionId: "bench-session" };
      case "session/prompt": {
        const first = params.prompt[0];
        const command = first?.type === "text" ? first.text : "";
        if (command === "gc") {
          globalThis.gc?.();
          return { stopReason: "end_turn" };
        }
        if (command === "cpu") {
          await peer.notify("session/update", { sessionId: params.sessionId, update: cpuUpdate() });
          return { stopReason: "end_turn" };
        }
        const n = Number(command.split(" ")[1] ?? 0);
        for (let i = 0; i < n; i++) {
          await peer.notify("session/update", {
            sessionId: params.sessionId,
            update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
          });
        }
        return { stopReason: "end_turn" };
      }
      default:
        throw new Error(`method not found: ${method}`);
    }
  },
});
await peer.closed;
