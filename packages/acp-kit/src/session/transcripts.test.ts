/**
 * Recorded transcripts (test/fixtures/transcripts/*.ndjson): every line is one JSON-RPC
 * message as it crossed the wire, `{ "from": "client" | "agent", "message": ... }`, in
 * order. Each transcript is replayed twice and must give exactly the state in its
 * `.expected.json`:
 *
 * - through a real {@link ClientSideConnection} whose client is wrapped by a
 *   {@link SessionStore}, the agent's side played byte for byte by a raw peer (client
 *   requests are made with the store's helpers, so turns and setup responses are
 *   recorded as an application would);
 * - through the pure functions only (`reduceSession`, `beginTurn`, `endTurn`, ...).
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { rawPeer, type RawPeer } from "../../../../test/support/raw-peer.js";
import {
  ClientSideConnection,
  type RequestPermissionResponse,
  type SessionNotification,
  type StopReason,
  type Usage,
} from "../index.js";
import { reduceSession } from "./reduce.js";
import { emptySessionState, type SessionState } from "./state.js";
import { SessionStore } from "./store.js";
import {
  applySetup,
  beginLoad,
  beginTurn,
  cancelTurn,
  endTurn,
  type SessionSetup,
} from "./turns.js";

type Message = {
  id?: number | string;
  method?: string;
  params?: unknown;
  result?: unknown;
} & Record<string, unknown>;
interface Line {
  from: "client" | "agent";
  message: Message;
}

const dir = new URL("../../../../test/fixtures/transcripts/", import.meta.url);
const names = readdirSync(dir)
  .filter((f) => f.endsWith(".ndjson"))
  .map((f) => f.slice(0, -".ndjson".length));

function load(name: string): { lines: Line[]; expected: Record<string, SessionState> } {
  const lines = readFileSync(new URL(`${name}.ndjson`, dir), "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Line);
  const expected = JSON.parse(readFileSync(new URL(`${name}.expected.json`, dir), "utf8")) as {
    sessions: Record<string, SessionState>;
  };
  return { lines, expected: expected.sessions };
}

const isRequest = (m: Message) => m.method !== undefined && m.id !== undefined;
const isNotification = (m: Message) => m.method !== undefined && m.id === undefined;

/** Replays through a real connection; returns the store's sessions. */
async function throughConnection(lines: Line[]): Promise<Record<string, SessionState>> {
  const peer: RawPeer = rawPeer();
  const store = new SessionStore();
  const answers = lines
    .filter((l) => l.from === "client" && l.message.method === undefined)
    .map((l) => l.message.result as RequestPermissionResponse);
  const conn = new ClientSideConnection(
    () =>
      store.wrap({
        requestPermission: () => {
          const answer = answers.shift();
          if (answer === undefined) throw new Error("unexpected permission request");
          return answer;
        },
        sessionUpdate: () => undefined,
      }),
    peer.stream,
  );
  let updatesWritten = 0;
  let updatesApplied = 0;
  store.subscribe((e) => {
    if (e.change.type === "update") updatesApplied++;
  });
  const pending = new Map<unknown, { wireId: unknown; done: Promise<unknown> }>();

  const clientCall = (m: Message): Promise<unknown> => {
    switch (m.method) {
      case "session/new":
        return store.newSession(conn, m.params as never);
      case "session/load":
        return store.loadSession(conn, m.params as never);
      case "session/resume":
        return store.resumeSession(conn, m.params as never);
      case "session/prompt":
        return store.prompt(conn, m.params as never);
      default:
        return conn.request(m.method ?? "", m.params);
    }
  };

  for (const { from, message: m } of lines) {
    if (from === "client") {
      if (isRequest(m)) {
        const done = clientCall(m);
        const wire = await peer.next();
        expect(wire).toMatchObject({ method: m.method, params: m.params });
        pending.set(m.id, { wireId: wire.id, done });
      } else if (isNotification(m)) {
        expect(m.method).toBe("session/cancel");
        await store.cancel(conn, m.params as never);
        expect(await peer.next()).toEqual(m);
      } else {
        expect(await peer.next()).toEqual(m);
      }
    } else if (m.method === undefined) {
      const call = pending.get(m.id);
      if (call === undefined) throw new Error(`no request ${String(m.id)} to answer`);
      await peer.write({ ...m, id: call.wireId });
      await call.done;
    } else {
      if (m.method === "session/update") updatesWritten++;
      await peer.write(m);
    }
  }
  await vi.waitFor(() => expect(updatesApplied).toBe(updatesWritten));
  conn.close();
  return Object.fromEntries(store.sessionIds().map((id) => [id, store.get(id)!]));
}

/** Replays with the pure functions only. */
function throughReducer(lines: Line[]): Record<string, SessionState> {
  const sessions = new Map<string, SessionState>();
  const requests = new Map<unknown, Message>();
  const change = (id: string, f: (s: SessionState) => SessionState) =>
    sessions.set(id, f(sessions.get(id) ?? emptySessionState(id)));
  for (const { from, message: m } of lines) {
    const params = m.params as { sessionId?: string; prompt?: never } | undefined;
    if (from === "client" && isRequest(m)) {
      requests.set(m.id, m);
      if (m.method === "session/prompt" && params?.sessionId)
        change(params.sessionId, (s) => beginTurn(s, params.prompt));
      if (m.method === "session/load" && params?.sessionId) change(params.sessionId, beginLoad);
    } else if (from === "client" && m.method === "session/cancel" && params?.sessionId) {
      change(params.sessionId, cancelTurn);
    } else if (from === "agent" && m.method === "session/update") {
      const { sessionId, update } = m.params as SessionNotification;
      change(sessionId, (s) => reduceSession(s, update));
    } else if (from === "agent" && m.method === undefined) {
      const request = requests.get(m.id);
      const result = m.result as { sessionId?: string; stopReason?: StopReason; usage?: Usage };
      const id =
        result.sessionId ?? (request?.params as { sessionId?: string } | undefined)?.sessionId;
      if (id === undefined) continue;
      if (request?.method === "session/prompt")
        change(id, (s) => endTurn(s, result.stopReason ?? null, result.usage));
      else if (request?.method?.startsWith("session/"))
        change(id, (s) => applySetup(s, result as SessionSetup));
    }
  }
  return Object.fromEntries(sessions);
}

describe("recorded transcripts", () => {
  it("are all there", () => {
    expect(names.length).toBeGreaterThanOrEqual(4);
  });

  for (const name of names) {
    it(`${name}: through a wrapped client on a real connection`, async () => {
      const { lines, expected } = load(name);
      expect(await throughConnection(lines)).toEqual(expected);
    });

    it(`${name}: through the pure reducer`, () => {
      const { lines, expected } = load(name);
      expect(throughReducer(lines)).toEqual(expected);
    });
  }
});
