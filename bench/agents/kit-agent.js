// S4 child agent for the "acp-kit" column: the classic API
// (AgentSideConnection + ndJsonStream) over this process's stdin/stdout.
// argv[2]: URL of the module providing the classic API (acp-kit's dist build
// or the acp-sdk-classic stand-in). Plain JS so no loader runs in the child.
//
// Prompt text "stream N" streams N agent_message_chunk updates (awaiting each)
// and ends the turn; prompt text "gc" runs a full GC (untimed, between runs); prompt text
// "cpu" sends one update whose text is the process's CPU time in microseconds.
import { Readable, Writable } from "node:stream";

const url = process.argv[2];
if (!url) throw new Error("usage: kit-agent.js <module-url>");
const { AgentSideConnection, ndJsonStream, PROTOCOL_VERSION } = await import(url);
const text = process.env.BENCH_CHUNK_TEXT ?? "x".repeat(40);

/** Prompt "cpu": one update whose text is this process's CPU time so far, in microseconds. */
function cpuUpdate() {
  const { user, system } = process.cpuUsage();
  return {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text: String(user + system) },
  };
}

const stream = ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
const connection = new AgentSideConnection(
  (conn) => ({
    initialize: () => ({ protocolVersion: PROTOCOL_VERSION, agentCapabilities: {} }),
    newSession: () => ({ sessionId: "bench-session" }),
    authenticate: () => ({}),
    prompt: async ({ sessionId, prompt }) => {
      const command = prompt[0]?.type === "text" ? prompt[0].text : "";
      if (command === "gc") {
        globalThis.gc?.();
        return { stopReason: "end_turn" };
      }
      if (command === "cpu") {
        await conn.sessionUpdate({ sessionId, update: cpuUpdate() });
        return { stopReason: "end_turn" };
      }
      const n = Number(command.split(" ")[1] ?? 0);
      for (let i = 0; i < n; i++) {
        await conn.sessionUpdate({
          sessionId,
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
        });
      }
      return { stopReason: "end_turn" };
    },
    cancel: () => undefined,
  }),
  stream,
);
await connection.closed;
