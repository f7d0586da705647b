// S4v2 child agent for the "acp-kit" column: acp-kit's v2 sides (AgentSideConnection with
// AgentSession) over this process's stdin/stdout. argv[2]: URL of acp-kit's classic module
// (dist/index.js); its v2 entry (dist/v2.js) sits beside it. Plain JS: no loader in the child.
//
// Prompt text "stream N" streams N agent message chunks (awaiting each) and ends the turn;
// "gc" runs a full GC (untimed, between runs); "cpu" sends one chunk whose text is the
// process's CPU time in microseconds. Every turn ends with the idle state.
import { Readable, Writable } from "node:stream";

const url = process.argv[2];
if (!url) throw new Error("usage: kit-v2-agent.js <module-url>");
const { AgentSideConnection, AgentSession, ndJsonStream } = await import(
  new URL("./v2.js", url).href
);
const text = process.env.BENCH_CHUNK_TEXT ?? "x".repeat(40);

const stream = ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
const connection = new AgentSideConnection((conn) => {
  let session;
  return {
    initialize: () => ({
      protocolVersion: 2,
      info: { name: "bench", version: "0.0.0" },
      capabilities: { session: {} },
    }),
    newSession: () => {
      session = new AgentSession(conn, "bench-session");
      return { sessionId: session.sessionId };
    },
    listSessions: () => ({ sessions: [] }),
    resumeSession: () => ({}),
    closeSession: () => undefined,
    prompt: (params) =>
      session.prompt(params, async (turn) => {
        const command = params.prompt[0]?.type === "text" ? params.prompt[0].text : "";
        if (command === "gc") {
          globalThis.gc?.();
          return "end_turn";
        }
        if (command === "cpu") {
          const { user, system } = process.cpuUsage();
          await turn.session.agentMessage().append(String(user + system));
          return "end_turn";
        }
        const n = Number(command.split(" ")[1] ?? 0);
        const message = turn.session.agentMessage();
        for (let i = 0; i < n; i++) await message.append(text);
        return "end_turn";
      }),
    cancel: () => undefined,
  };
}, stream);
await connection.closed;
