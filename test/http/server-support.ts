/**
 * Helpers for the HTTP server tests: a raw JSON-RPC test agent and an SSE reader.
 */
import type { AnyMessage } from "../../src/index.js";
import type { AcpAgentFactory } from "../../src/http/server/index.js";

type Msg = Record<string, unknown> & { id?: string | number | null; method?: string };

/** Number of updates a prompt asks for: its first text block, as a decimal. */
function countOf(params: unknown): number {
  const prompt = (params as { prompt?: { text?: string }[] }).prompt;
  return Number(prompt?.[0]?.text ?? "0") || 0;
}

/** What the raw agent saw. */
export interface RawAgentLog {
  received: Msg[];
}

/**
 * A small agent speaking raw messages: initialize, session/new (`s1`, `s2`, ...),
 * session/prompt (streams N `agent_message_chunk` updates with text "0".."N-1", N = the
 * prompt's text), session/load (one update, then `{}`), `_test/ask` (asks the client a
 * session/request_permission and answers with the client's answer), `_test/shout`
 * (a connection-level notification).
 */
export function rawAgent(log?: RawAgentLog): AcpAgentFactory {
  return (stream) => {
    const writer = stream.writable.getWriter();
    const reader = stream.readable.getReader();
    const waiting = new Map<string | number, (answer: Msg) => void>();
    let sessions = 0;
    let asks = 0;
    const write = (message: Msg): Promise<void> =>
      writer.write(message as unknown as AnyMessage).catch(() => undefined);
    const handle = async (m: Msg): Promise<void> => {
      const params = (m.params ?? {}) as Record<string, unknown>;
      switch (m.method) {
        case "initialize":
          await write({
            jsonrpc: "2.0",
            id: m.id,
            result: { protocolVersion: 1, agentCapabilities: { loadSession: true } },
          });
          return;
        case "session/new":
          sessions++;
          await write({ jsonrpc: "2.0", id: m.id, result: { sessionId: `s${sessions}` } });
          return;
        case "session/prompt": {
          const n = countOf(params);
          for (let i = 0; i < n; i++) {
            await write({
              jsonrpc: "2.0",
              method: "session/update",
              params: {
                sessionId: params.sessionId,
                update: {
                  sessionUpdate: "agent_message_chunk",
                  content: { type: "text", text: String(i) },
                },
              },
            });
          }
          await write({ jsonrpc: "2.0", id: m.id, result: { stopReason: "end_turn" } });
          return;
        }
        case "session/load":
          await write({
            jsonrpc: "2.0",
            method: "session/update",
            params: {
              sessionId: params.sessionId,
              update: {
                sessionUpdate: "agent_message_chunk",
                content: { type: "text", text: "old" },
              },
            },
          });
          await write({ jsonrpc: "2.0", id: m.id, result: {} });
          return;
        case "_test/ask": {
          const id = `ask-${++asks}`;
          const answer = new Promise<Msg>((resolve) => waiting.set(id, resolve));
          await write({
            jsonrpc: "2.0",
            id,
            method: "session/request_permission",
            params: {
              sessionId: params.sessionId,
              toolCall: { toolCallId: "t1" },
              options: [{ optionId: "ok", name: "OK", kind: "allow_once" }],
            },
          });
          const got = await answer;
          await write({ jsonrpc: "2.0", id: m.id, result: { answer: got.result ?? null } });
          return;
        }
        case "_test/shout":
          await write({ jsonrpc: "2.0", method: "_test/heard", params: {} });
          if (m.id !== undefined) await write({ jsonrpc: "2.0", id: m.id, result: {} });
          return;
        default:
          if (m.method !== undefined && m.id !== undefined) {
            await write({
              jsonrpc: "2.0",
              id: m.id,
              error: { code: -32601, message: "Method not found" },
            });
          }
      }
    };
    void (async () => {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) break;
        const m = value as unknown as Msg;
        log?.received.push(m);
        if (m.method === undefined && m.id !== undefined && m.id !== null) {
          waiting.get(m.id)?.(m);
          continue;
        }
        void handle(m);
      }
      await writer.close().catch(() => undefined);
    })();
  };
}

/** One parsed SSE event. */
export interface SseEvent {
  id?: string;
  data: Msg;
}

/** Reads SSE events (and counts comments) from a fetch response. */
export class SseReader {
  private buffer = "";
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  comments = 0;
  ended = false;

  constructor(response: Response) {
    if (response.body === null) throw new Error("no body");
    this.reader = response.body.getReader();
  }

  /** The next event, or `undefined` at the end of the stream. */
  async next(): Promise<SseEvent | undefined> {
    for (;;) {
      const cut = this.buffer.indexOf("\n\n");
      if (cut >= 0) {
        const block = this.buffer.slice(0, cut);
        this.buffer = this.buffer.slice(cut + 2);
        let id: string | undefined;
        const data: string[] = [];
        let comment = false;
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) comment = true;
          else if (line.startsWith("id:")) id = line.slice(3).trim();
          else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
        }
        if (data.length === 0) {
          if (comment) this.comments++;
          continue;
        }
        return { ...(id === undefined ? {} : { id }), data: JSON.parse(data.join("\n")) as Msg };
      }
      const { value, done } = await this.reader.read();
      if (done) {
        this.ended = true;
        return undefined;
      }
      this.buffer += this.decoder.decode(value, { stream: true });
    }
  }

  /** Reads until `count` events arrived. */
  async take(count: number): Promise<SseEvent[]> {
    const events: SseEvent[] = [];
    while (events.length < count) {
      const event = await this.next();
      if (event === undefined) break;
      events.push(event);
    }
    return events;
  }

  /** Drops the connection. */
  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => undefined);
  }
}

/** A tiny client for raw wire tests. */
export class RawClient {
  connectionId = "";
  private nextId = 1;
  constructor(
    readonly url: string,
    readonly headers: Record<string, string> = {},
  ) {}

  post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(this.url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        ...this.headers,
        ...(this.connectionId === "" ? {} : { "Acp-Connection-Id": this.connectionId }),
        ...headers,
      },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  }

  request(method: string, params: unknown, sessionId?: string): Promise<Response> {
    return this.post(
      { jsonrpc: "2.0", id: this.nextId++, method, params },
      sessionId === undefined ? {} : { "Acp-Session-Id": sessionId },
    );
  }

  async initialize(): Promise<Msg> {
    const response = await this.post({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: 1, clientCapabilities: {} },
    });
    if (response.status !== 200) throw new Error(`initialize: ${response.status}`);
    this.connectionId = response.headers.get("Acp-Connection-Id") ?? "";
    return (await response.json()) as Msg;
  }

  async stream(sessionId?: string, extra: Record<string, string> = {}): Promise<Response> {
    return fetch(this.url, {
      headers: {
        Accept: "text/event-stream",
        ...this.headers,
        "Acp-Connection-Id": this.connectionId,
        ...(sessionId === undefined ? {} : { "Acp-Session-Id": sessionId }),
        ...extra,
      },
    });
  }

  async sse(sessionId?: string, extra: Record<string, string> = {}): Promise<SseReader> {
    const response = await this.stream(sessionId, extra);
    if (response.status !== 200)
      throw new Error(`GET: ${response.status} ${await response.text()}`);
    return new SseReader(response);
  }
}
