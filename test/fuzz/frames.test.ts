/**
 * Frame fuzz test: raw newline-delimited bytes thrown at both ends of a connection.
 *
 * The test plays the peer at the byte level. An `AgentSideConnection` (with a small
 * working agent) and a `ClientSideConnection` (with a small working client) each read
 * from an identity `TransformStream<Uint8Array>` the test writes to, through
 * `ndJsonStream` with a 64 KiB `maxMessageBytes`, and write to one the test reads. Each
 * side runs twice: with default options (lenient decoding) and with `lenient: false`.
 *
 * Each round generates thousands of frames from a seeded PRNG: valid requests and
 * notifications of the real ACP methods (valid params), the same mutated (envelope and
 * params: wrong types, missing fields, unknown methods, wrong or missing `jsonrpc`,
 * object ids, huge numbers, deep nesting, unknown session update kinds, `__proto__`
 * keys), params with invalid items in skippable lists, requests of the other side's
 * methods and of unknown methods, responses to ids never requested, `$/cancel_request`
 * for random and in-flight ids, truncated JSON, random bytes (invalid UTF-8 included),
 * random text, blank and CRLF lines, batches, bare primitives, edge-case ids (huge
 * numbers, `-0`, `1.0`, long and non-ASCII strings), BOM-prefixed lines, and lines over
 * the size limit (id before or after the payload, decoys in the payload, truncated,
 * exact-boundary sizes). The round's bytes are then cut into random chunks (so multi-byte
 * characters and lines are split at random points) and written. The connection under
 * test also sends requests of its own at the start of each round, which the frames
 * answer (valid, invalid and `null` results, errors, malformed errors, oversized
 * responses, duplicates, look-alike ids such as `"3"` for `3`, and `3.0` for `3`).
 *
 * Expectations are derived from the bytes of each line by an independent oracle (JSON
 * semantics plus the documented framing rules), and checked after each round:
 *
 * - no unhandled rejection or uncaught exception, and every output line is a well-formed
 *   JSON-RPC message;
 * - every request frame with a valid id gets exactly one answer with that id, of the
 *   class its frame dictates (a result, -32600, -32601, -32602, or -32800 when it was
 *   cancelled); request frames with an invalid id, non-objects, batches and methods of
 *   the wrong type get exactly one -32600 with id null; malformed JSON gets exactly one
 *   -32700 with id null;
 * - notifications and responses never get an answer;
 * - an oversized line is answered -32600 exactly when it is a request whose id the
 *   envelope scanner can recover, and never otherwise (recoverable: a top-level `id`
 *   that is `null`, a safe integer literal (|n| < 2^53), or a string of at most 256
 *   raw characters with no raw non-ASCII bytes; a raw non-ASCII string id is recovered
 *   only from the part of the line buffered before it crossed the limit, so 0 or 1);
 * - every request the connection sent settles exactly as the answer frame dictates;
 * - at the end a valid request still round-trips, and a last unterminated line is
 *   handled when the input ends.
 *
 * Answers are matched to expectations by a small max-flow (several frames may share an
 * id: duplicates, `null`, edge ids), so two requests with the same id need two answers.
 * Where behaviour is legitimately open the oracle accepts both (a `{}` line may get a
 * -32600 or nothing; with lenient decoding, params invalid as received may be repaired
 * and handled or answered -32602; a line starting with a BOM: see the last test).
 *
 * Reproduce a failure with `ACP_FUZZ_SEED=<seed>` (printed in every failure message).
 * `ACP_FUZZ_FRAMES` sets the frames per side (default 110 000), `ACP_FUZZ_REPORT=1`
 * prints counts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AgentSideConnection,
  ClientSideConnection,
  ConnectionError,
  METHOD_SPECS,
  RequestError,
  ndJsonStream,
  type Agent,
  type Client,
  type MethodSpec,
} from "../../packages/acp-kit/src/index.js";

const SEED = Number(process.env.ACP_FUZZ_SEED ?? 20260822);
const FRAMES_PER_SIDE = Number(process.env.ACP_FUZZ_FRAMES ?? 110_000);
const FRAMES_PER_ROUND = 5_500;
const REPORT = process.env.ACP_FUZZ_REPORT === "1";
const MAX_BYTES = 64 * 1024;
const NL = 0x0a;
const CR = 0x0d;

type Side = "agent" | "client";
type JsonId = string | number | null;
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = Record<string, unknown>;

// ---------------------------------------------------------------------------------------
// Seeded PRNG (xoshiro128**, seeded through splitmix32)
// ---------------------------------------------------------------------------------------

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

class Rng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(seed: number) {
    let x = seed >>> 0;
    const next = (): number => {
      x = (x + 0x9e3779b9) | 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.s0 = next();
    this.s1 = next();
    this.s2 = next();
    this.s3 = next();
  }

  u32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  float(): number {
    return this.u32() / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** An integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  weighted<T>(table: readonly (readonly [number, T])[]): T {
    let total = 0;
    for (const [w] of table) total += w;
    let r = this.float() * total;
    for (const [w, value] of table) {
      r -= w;
      if (r < 0) return value;
    }
    return table[table.length - 1]![1];
  }
}

// ---------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------

const encoder = new TextEncoder();

function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isValidId(value: unknown): value is JsonId {
  return value === null || typeof value === "string" || Number.isInteger(value);
}

/** A canonical key for an id value (numbers by value, so `1.0` and `1` are one id). */
function idKey(id: JsonId): string {
  if (id === null) return "null";
  return typeof id === "string" ? `s:${id}` : `n:${String(id)}`;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const p of parts) size += p.length;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function preview(bytes: Uint8Array, max = 160): string {
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(
    bytes.subarray(0, Math.min(bytes.length, max * 4)),
  );
  const shown = JSON.stringify(text.length > max ? text.slice(0, max) + "…" : text);
  return `${shown} (${bytes.length} bytes)`;
}

// ---------------------------------------------------------------------------------------
// The implementations under test
// ---------------------------------------------------------------------------------------

function firstText(prompt: unknown): string {
  if (!Array.isArray(prompt)) return "";
  const first: unknown = prompt[0];
  return isObj(first) && typeof first.text === "string" ? first.text : "";
}

function makeAgent(connection: AgentSideConnection): Agent {
  return {
    initialize: () => ({ protocolVersion: 1, agentCapabilities: { loadSession: true } }),
    authenticate: () => ({}),
    logout: () => ({}),
    newSession: () => ({ sessionId: "sess-new" }),
    loadSession: () => ({}),
    listSessions: () => ({ sessions: [] }),
    resumeSession: () => ({}),
    closeSession: () => ({}),
    deleteSession: () => ({}),
    setSessionMode: () => ({}),
    setSessionConfigOption: () => ({ configOptions: [] }),
    async prompt(params, context) {
      const text = firstText(params.prompt);
      if (text.startsWith("update")) {
        await connection.sessionUpdate({
          sessionId: params.sessionId,
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "ok" } },
        });
      }
      if (text.startsWith("slow")) await delay(1 + (text.length % 3), context?.signal);
      return { stopReason: "end_turn" };
    },
    cancel: () => undefined,
    extMethod(method) {
      if (!method.startsWith("_")) throw RequestError.methodNotFound(method);
      return { ok: true };
    },
    extNotification(method) {
      if (method === "_pause") return new Promise<void>((resolve) => setImmediate(resolve));
    },
  };
}

function makeClient(): Client {
  return {
    async requestPermission(params, context) {
      const id = params.toolCall.toolCallId;
      if (id.startsWith("slow")) await delay(1 + (id.length % 3), context?.signal);
      return { outcome: { outcome: "selected", optionId: params.options[0]?.optionId ?? "x" } };
    },
    sessionUpdate(params) {
      const update = params.update as Obj;
      const content = update.content;
      if (isObj(content) && content.text === "pause") {
        return new Promise<void>((resolve) => setImmediate(resolve));
      }
    },
    readTextFile: () => ({ content: "text" }),
    writeTextFile: () => ({}),
    createTerminal: () => ({ terminalId: "term-1" }),
    terminalOutput: () => ({ output: "", truncated: false }),
    releaseTerminal: () => ({}),
    waitForTerminalExit: () => ({ exitCode: 0 }),
    killTerminal: () => ({}),
    createElicitation: () => ({ action: "decline" }),
    completeElicitation: () => undefined,
    extMethod(method) {
      if (!method.startsWith("_")) throw RequestError.methodNotFound(method);
      return { ok: true };
    },
    extNotification(method) {
      if (method === "_pause") return new Promise<void>((resolve) => setImmediate(resolve));
    },
  };
}

/** The request methods each implementation above handles (everything else: -32601 or ext). */
const IMPLEMENTED: Record<Side, readonly string[]> = {
  agent: [
    "initialize",
    "authenticate",
    "logout",
    "session/new",
    "session/load",
    "session/list",
    "session/resume",
    "session/close",
    "session/delete",
    "session/set_mode",
    "session/set_config_option",
    "session/prompt",
  ],
  client: [
    "session/request_permission",
    "fs/read_text_file",
    "fs/write_text_file",
    "terminal/create",
    "terminal/output",
    "terminal/release",
    "terminal/wait_for_exit",
    "terminal/kill",
    "elicitation/create",
  ],
};

function specsFor(side: Side): Map<string, MethodSpec> {
  const map = new Map<string, MethodSpec>();
  for (const spec of METHOD_SPECS) {
    if (
      spec.handledBy === side &&
      spec.kind === "request" &&
      IMPLEMENTED[side].includes(spec.method)
    ) {
      map.set(spec.method, spec);
    }
  }
  return map;
}

// ---------------------------------------------------------------------------------------
// Requests the connection under test sends to the test (answered by the frames)
// ---------------------------------------------------------------------------------------

type Outcome =
  | { readonly kind: "resolve" }
  | { readonly kind: "request_error"; readonly code: number }
  | { readonly kind: "connection_error"; readonly code: string }
  | { readonly kind: "any" };

interface OutSpec {
  readonly method: string;
  /** Sends the request through the typed API of the connection under test. */
  readonly call: (connection: AgentSideConnection | ClientSideConnection) => Promise<unknown>;
  readonly valid: Json;
  /** A result the connection must reject as invalid (undefined for unvalidated ext calls). */
  readonly invalid?: Json;
  /** The result has no required fields: `null` is accepted as `{}`. */
  readonly empty?: boolean;
}

const SID = "sess-1";

function onClient(call: (connection: ClientSideConnection) => Promise<unknown>): OutSpec["call"] {
  return (connection) => call(connection as ClientSideConnection);
}

function onAgent(call: (connection: AgentSideConnection) => Promise<unknown>): OutSpec["call"] {
  return (connection) => call(connection as AgentSideConnection);
}

const CLIENT_OUT: readonly OutSpec[] = [
  {
    method: "initialize",
    call: onClient((c) => c.initialize({ protocolVersion: 1, clientCapabilities: {} })),
    valid: { protocolVersion: 1 },
    invalid: { protocolVersion: "one" },
  },
  {
    method: "session/new",
    call: onClient((c) => c.newSession({ cwd: "/", mcpServers: [] })),
    valid: { sessionId: SID },
    invalid: { sessionId: 5 },
  },
  {
    method: "session/prompt",
    call: onClient((c) => c.prompt({ sessionId: SID, prompt: [{ type: "text", text: "hi" }] })),
    valid: { stopReason: "end_turn" },
    invalid: { stopReason: "bogus" },
  },
  {
    method: "session/set_mode",
    call: onClient((c) => c.setSessionMode({ sessionId: SID, modeId: "m" })),
    valid: {},
    invalid: [],
    empty: true,
  },
  {
    method: "authenticate",
    call: onClient((c) => c.authenticate({ methodId: "a" })),
    valid: {},
    invalid: "x",
    empty: true,
  },
  {
    method: "_fuzz/out",
    call: onClient((c) => c.extMethod("_fuzz/out", { a: 1 })),
    valid: { ok: 1 },
  },
];

const AGENT_OUT: readonly OutSpec[] = [
  {
    method: "session/request_permission",
    call: onAgent((c) =>
      c.requestPermission({
        sessionId: SID,
        toolCall: { toolCallId: "t" },
        options: [{ optionId: "a", name: "A", kind: "allow_once" }],
      }),
    ),
    valid: { outcome: { outcome: "cancelled" } },
    invalid: { outcome: { outcome: "bogus" } },
  },
  {
    method: "fs/read_text_file",
    call: onAgent((c) => c.readTextFile({ sessionId: SID, path: "/a" })),
    valid: { content: "x" },
    invalid: { content: 5 },
  },
  {
    method: "fs/write_text_file",
    call: onAgent((c) => c.writeTextFile({ sessionId: SID, path: "/a", content: "x" })),
    valid: {},
    invalid: [],
    empty: true,
  },
  {
    method: "terminal/create",
    call: onAgent((c) => c.createTerminal({ sessionId: SID, command: "ls" })),
    valid: { terminalId: "t" },
    invalid: {},
  },
  {
    method: "elicitation/create",
    call: onAgent((c) =>
      c.createElicitation({
        sessionId: SID,
        mode: "form",
        message: "m",
        requestedSchema: { type: "object", properties: {} },
      }),
    ),
    valid: { action: "decline" },
    invalid: { action: 5 },
  },
  { method: "_fuzz/out", call: onAgent((c) => c.extMethod("_fuzz/out", {})), valid: { ok: 1 } },
];

interface OutCall {
  readonly spec: OutSpec;
  id: number;
  status: "pending" | "resolved" | "rejected";
  error?: unknown;
}

// ---------------------------------------------------------------------------------------
// Frames and the generator
// ---------------------------------------------------------------------------------------

/** What an oversized line's envelope holds, by construction (independent of the scanner). */
interface OversizedMeta {
  /** The id the scanner must recover, when it is recoverable. */
  readonly id?: JsonId;
  /** The id is recoverable only when it arrives in the buffered (text) part: 0..1 answers. */
  readonly maybe?: boolean;
  /** True when the line has a top-level `method` key (before any truncation). */
  readonly hasMethod: boolean;
}

interface Frame {
  /** The line's bytes without its `\n` (with the `\r` of a CRLF). */
  line: Uint8Array;
  readonly oversized?: OversizedMeta;
  /** For the answer to a request of the connection under test: how it must settle. */
  readonly outbound?: { readonly id: number; readonly outcome: Outcome };
  readonly kind: string;
}

const ASCII = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-./:";
const SPICE = [
  "é",
  "ß",
  "中",
  "文",
  "😀",
  "👩‍💻",
  "\u0000",
  "\u0007",
  "\u001f",
  "\u007f",
  "\u2028",
  "\u2029",
  "\uFFFD",
  "\uFEFF",
  "\u00a0",
  "\\",
  '"',
  "\t",
  "\r",
  "\n",
  "\ud800",
  "\udfff",
  "\u{10ffff}",
  "{",
  "}",
  "[",
  "]",
  ":",
  ",",
];
/** Marks a string value to be replaced by raw JSON text after serialisation. */
const RAW = "\u0001raw:";
const RAW_PATTERN = /"\\u0001raw:(\d+)"/g;

const EDGE_IDS = [
  "0",
  "-1",
  "1",
  "-0",
  "1.0",
  "0e0",
  "1E2",
  "9007199254740991",
  "9007199254740993",
  "123456789012345678901234567890",
  "1e300",
  "-1e300",
  '""',
  '"0"',
  '"1"',
  '"null"',
  '"\\u00e9\\ud83d\\ude00"',
  '"é😀中"',
  '"\\u0000"',
  '"\\ud800"',
  '"a\\"b\\\\c"',
  `"${"x".repeat(1000)}"`,
  "null",
];
const INVALID_IDS = [
  "1.5",
  "-0.25",
  "true",
  "false",
  "{}",
  '{"a":1}',
  "[]",
  "[1]",
  "1e400",
  "-1e400",
  '{"id":1}',
];
const HUGE_NUMBERS = [
  "1e400",
  "-1e400",
  "123456789012345678901234567890",
  "1.0",
  "-0",
  "0e0",
  "1E3",
  "9007199254740993",
  "1e-400",
  "65536",
  "-1",
];
const WEIRD_METHODS = [
  "",
  "initialize ",
  "Initialize",
  "session/promptx",
  "session/",
  "$/cancel_request",
  "$/unknown",
  "_",
  "rpc.discover",
  "\u0000",
  "__proto__",
  "constructor",
  "hasOwnProperty",
  "toString",
  "é/中",
  "foo/bar",
];
const UNKNOWN_UPDATES = ["future_kind", "_vendor.example/x", "", "AGENT_MESSAGE_CHUNK", "plan_v2"];

class Gen {
  private counter = 0;
  private recent: string[] = [];
  private raws: string[] = [];
  private readonly requests: readonly (readonly [string, () => unknown])[];
  private readonly notifications: readonly (readonly [string, () => unknown])[];
  private readonly otherMethods: readonly string[];
  /** Requests of the connection under test waiting for this round's answers. */
  pending: OutCall[] = [];
  /** Ids of its requests already answered in earlier rounds. */
  settled: number[] = [];

  constructor(
    readonly rng: Rng,
    readonly side: Side,
  ) {
    const agentRequests: (readonly [string, () => unknown])[] = [
      ["initialize", () => this.initializeParams()],
      ["authenticate", () => ({ methodId: this.str(8) })],
      ["logout", () => (rng.chance(0.3) ? undefined : {})],
      [
        "session/new",
        () => ({
          cwd: this.path(),
          mcpServers: rng.chance(0.5)
            ? []
            : [
                {
                  name: this.str(5),
                  command: this.path(),
                  args: [this.str(3)],
                  env: [{ name: "A", value: this.str(4) }],
                },
              ],
        }),
      ],
      ["session/load", () => ({ sessionId: this.sid(), cwd: this.path(), mcpServers: [] })],
      [
        "session/list",
        () => (rng.chance(0.3) ? undefined : rng.chance(0.5) ? {} : { cwd: this.path() }),
      ],
      ["session/resume", () => ({ sessionId: this.sid(), cwd: this.path() })],
      ["session/close", () => ({ sessionId: this.sid() })],
      ["session/delete", () => ({ sessionId: this.sid() })],
      ["session/set_mode", () => ({ sessionId: this.sid(), modeId: this.str(6) })],
      [
        "session/set_config_option",
        () => ({ sessionId: this.sid(), configId: this.str(5), value: this.str(5) }),
      ],
      ["session/prompt", () => this.promptParams()],
      ["session/prompt", () => this.promptParams()],
      ["session/prompt", () => this.promptParams()],
    ];
    const clientRequests: (readonly [string, () => unknown])[] = [
      ["session/request_permission", () => this.permissionParams()],
      ["session/request_permission", () => this.permissionParams()],
      [
        "fs/read_text_file",
        () => ({
          sessionId: this.sid(),
          path: this.path(),
          ...(rng.chance(0.5) ? { line: rng.range(1, 1000), limit: rng.range(1, 100) } : {}),
        }),
      ],
      [
        "fs/write_text_file",
        () => ({ sessionId: this.sid(), path: this.path(), content: this.str(40) }),
      ],
      [
        "terminal/create",
        () => ({
          sessionId: this.sid(),
          command: "ls",
          args: [this.str(4)],
          env: [{ name: "X", value: this.str(3) }],
          ...(rng.chance(0.5) ? { cwd: this.path(), outputByteLimit: rng.range(0, 10000) } : {}),
        }),
      ],
      ["terminal/output", () => this.terminalParams()],
      ["terminal/release", () => this.terminalParams()],
      ["terminal/wait_for_exit", () => this.terminalParams()],
      ["terminal/kill", () => this.terminalParams()],
      ["elicitation/create", () => this.elicitationParams()],
    ];
    const agentNotifications: (readonly [string, () => unknown])[] = [
      ["session/cancel", () => ({ sessionId: this.sid() })],
      ["$/cancel_request", () => ({ requestId: this.rawOf(this.cancelTarget()) })],
      ["_fuzz/note", () => ({ x: this.json(2) })],
      ["_pause", () => ({})],
      ["foo/unknown", () => ({ x: 1 })],
    ];
    const clientNotifications: (readonly [string, () => unknown])[] = [
      ["session/update", () => ({ sessionId: this.sid(), update: this.update() })],
      ["session/update", () => ({ sessionId: this.sid(), update: this.update() })],
      ["session/update", () => ({ sessionId: this.sid(), update: this.update() })],
      ["elicitation/complete", () => ({ elicitationId: this.str(6) })],
      ["$/cancel_request", () => ({ requestId: this.rawOf(this.cancelTarget()) })],
      ["_fuzz/note", () => ({ x: this.json(2) })],
      ["_pause", () => ({})],
    ];
    this.requests = side === "agent" ? agentRequests : clientRequests;
    this.notifications = side === "agent" ? agentNotifications : clientNotifications;
    this.otherMethods = (side === "agent" ? clientRequests : agentRequests).map(([m]) => m);
  }

  // -- values ----------------------------------------------------------------------------

  str(max: number): string {
    const n = this.rng.int(max + 1);
    let s = "";
    for (let i = 0; i < n; i++) {
      s += this.rng.chance(0.15) ? this.rng.pick(SPICE) : ASCII[this.rng.int(ASCII.length)]!;
    }
    return s;
  }

  path(): string {
    return "/" + this.str(12).replace(/[\\"]/g, "");
  }

  sid(): string {
    return this.rng.chance(0.7) ? `sess-${this.rng.int(4)}` : this.str(10);
  }

  json(depth: number): Json {
    const r = this.rng.int(depth > 0 ? 8 : 5);
    switch (r) {
      case 0:
        return null;
      case 1:
        return this.rng.chance(0.5);
      case 2:
        return this.rng.pick([0, -1, 1, 2 ** 31, -(2 ** 53), 1.5, 1e300, this.rng.int(1000)]);
      case 3:
      case 4:
        return this.str(10);
      case 5:
        return Array.from({ length: this.rng.int(4) }, () => this.json(depth - 1));
      default: {
        const o: Record<string, Json> = {};
        const n = this.rng.int(4);
        for (let i = 0; i < n; i++) {
          const key = this.rng.chance(0.2)
            ? this.rng.pick(["id", "method", "_meta", "result", "constructor", "toString"])
            : this.str(6);
          o[key] = this.json(depth - 1);
        }
        return o;
      }
    }
  }

  /** A value placeholder replaced by `text` verbatim in the serialised frame. */
  rawOf(text: string): string {
    this.raws.push(text);
    return RAW + String(this.raws.length - 1);
  }

  serialize(value: unknown): string {
    const text = JSON.stringify(value) as string | undefined;
    if (text === undefined) return "";
    const raws = this.raws;
    return text.replace(RAW_PATTERN, (_m, i: string) => raws[Number(i)]!);
  }

  initializeParams(): unknown {
    const p: Obj = { protocolVersion: this.rng.int(3) };
    if (this.rng.chance(0.5)) {
      p.clientCapabilities = {
        fs: { readTextFile: this.rng.chance(0.5), writeTextFile: this.rng.chance(0.5) },
        terminal: this.rng.chance(0.5),
      };
    }
    if (this.rng.chance(0.5)) p.clientInfo = { name: this.str(8), version: "1.0.0" };
    return p;
  }

  promptParams(): unknown {
    const lead = this.rng.weighted([
      [3, "slow "],
      [1, "update "],
      [6, ""],
    ] as const);
    const blocks: unknown[] = [{ type: "text", text: lead + this.str(20) }];
    if (this.rng.chance(0.3)) blocks.push({ type: "resource_link", uri: "file:///a", name: "a" });
    if (this.rng.chance(0.1)) blocks.push({ type: "future_block", data: this.json(2) });
    return { sessionId: this.sid(), prompt: blocks };
  }

  permissionParams(): unknown {
    return {
      sessionId: this.sid(),
      toolCall: {
        toolCallId: (this.rng.chance(0.3) ? "slow-" : "tc-") + this.str(5),
        ...(this.rng.chance(0.5) ? { title: this.str(10), status: "pending", kind: "read" } : {}),
      },
      options: [
        { optionId: "allow", name: "Allow", kind: "allow_once" },
        { optionId: "deny", name: "Deny", kind: "reject_once" },
      ],
    };
  }

  terminalParams(): unknown {
    return { sessionId: this.sid(), terminalId: `term-${this.rng.int(3)}` };
  }

  elicitationParams(): unknown {
    return this.rng.chance(0.5)
      ? {
          sessionId: this.sid(),
          mode: "form",
          message: this.str(10),
          requestedSchema: {
            type: "object",
            properties: { name: { type: "string", title: "Name" } },
          },
        }
      : {
          sessionId: this.sid(),
          mode: "url",
          message: this.str(10),
          elicitationId: this.str(5),
          url: "https://example.com/x",
        };
  }

  update(): unknown {
    const text = (): unknown => ({
      type: "text",
      text: this.rng.chance(0.2) ? "pause" : this.str(15),
    });
    return this.rng.weighted<() => unknown>([
      [4, () => ({ sessionUpdate: "agent_message_chunk", content: text() })],
      [1, () => ({ sessionUpdate: "user_message_chunk", content: text() })],
      [1, () => ({ sessionUpdate: "agent_thought_chunk", content: text() })],
      [
        2,
        () => ({
          sessionUpdate: "tool_call",
          toolCallId: this.str(5),
          title: this.str(10),
          kind: "read",
          status: "pending",
          content: [{ type: "content", content: { type: "text", text: this.str(5) } }],
          locations: [{ path: this.path() }],
        }),
      ],
      [
        2,
        () => ({ sessionUpdate: "tool_call_update", toolCallId: this.str(5), status: "completed" }),
      ],
      [
        1,
        () => ({
          sessionUpdate: "plan",
          entries: [{ content: this.str(8), priority: "high", status: "pending" }],
        }),
      ],
      [
        1,
        () => ({
          sessionUpdate: "available_commands_update",
          availableCommands: [{ name: "x", description: "y" }],
        }),
      ],
      [1, () => ({ sessionUpdate: "current_mode_update", currentModeId: "m" })],
      [
        2,
        () => ({
          sessionUpdate: this.rng.pick(UNKNOWN_UPDATES),
          payload: this.json(2),
          content: text(),
        }),
      ],
    ])();
  }

  // -- ids -------------------------------------------------------------------------------

  freshId(): string {
    const n = this.counter++;
    const text = this.rng.chance(0.5)
      ? String(1_000_000 + n)
      : JSON.stringify(
          `r${n}${this.rng.chance(0.3) ? this.rng.pick(["é", "😀", "\u2028", " ", "\\"]) : ""}`,
        );
    this.recent.push(text);
    if (this.recent.length > 64) this.recent.shift();
    return text;
  }

  /** The raw JSON text of a request id: mostly fresh, sometimes a duplicate or an edge case. */
  idText(): string {
    const r = this.rng.float();
    if (r < 0.05 && this.recent.length > 0) return this.rng.pick(this.recent);
    if (r < 0.07) return "null";
    if (r < 0.1) return this.rng.pick(EDGE_IDS);
    return this.freshId();
  }

  cancelTarget(): string {
    const r = this.rng.float();
    if (r < 0.6 && this.recent.length > 0) {
      return this.recent[this.recent.length - 1 - this.rng.int(Math.min(8, this.recent.length))]!;
    }
    if (r < 0.8) return this.rng.pick(EDGE_IDS);
    return String(this.rng.int(1_000_000_000));
  }

  // -- messages --------------------------------------------------------------------------

  request(method: string, params: unknown, idText = this.idText()): Obj {
    const id = this.rawOf(idText);
    const m: Obj = {};
    // Vary key order: the id may come first, last or in the middle.
    const order = this.rng.int(3);
    if (order === 0) Object.assign(m, { jsonrpc: "2.0", id, method });
    else if (order === 1) Object.assign(m, { method, jsonrpc: "2.0" });
    else Object.assign(m, { jsonrpc: "2.0", method });
    if (params !== undefined) m.params = params;
    if (order !== 0) m.id = id;
    return m;
  }

  validRequest(): Obj {
    const [method, params] = this.rng.pick(this.requests);
    return this.request(method, params());
  }

  validNotification(): Obj {
    const [method, params] = this.rng.pick(this.notifications);
    return { jsonrpc: "2.0", method, params: params() };
  }

  mutate(m: Obj): void {
    const rng = this.rng;
    const n = rng.range(1, 3);
    for (let i = 0; i < n; i++) {
      switch (rng.int(16)) {
        case 0:
          delete m.jsonrpc;
          break;
        case 1:
          m.jsonrpc = rng.pick<unknown>(["1.0", "2", 2, null, "", "2.0 ", {}, true]);
          break;
        case 2:
          delete m.method;
          break;
        case 3:
          m.method = rng.pick<unknown>([5, null, true, {}, [], ["initialize"], 1.5]);
          break;
        case 4:
          m.method = rng.chance(0.5)
            ? rng.pick(WEIRD_METHODS)
            : rng.chance(0.5)
              ? rng.pick(this.otherMethods)
              : this.str(12);
          break;
        case 5:
          delete m.id;
          break;
        case 6:
          m.id = this.rawOf(rng.pick(INVALID_IDS));
          break;
        case 7:
          m.id = this.rawOf(rng.pick(EDGE_IDS));
          break;
        case 8:
          delete m.params;
          break;
        case 9:
          m.params = rng.pick<unknown>([null, [], "x", 5, true, [m.params ?? {}]]);
          break;
        case 10:
        case 11:
          this.mutateInside(m.params);
          break;
        case 12:
          if (rng.chance(0.5)) m.result = this.json(2);
          else m.error = { code: -32000, message: "x" };
          break;
        case 13:
          if (isObj(m.params)) m.params[this.str(6)] = this.json(3);
          else m[this.str(6)] = this.json(2);
          break;
        case 14:
          if (isObj(m.params)) {
            const deep = rng.range(50, 5000);
            const key = rng.pick(Object.keys(m.params).concat(["_meta", "extra"]));
            m.params[key] = this.rawOf("[".repeat(deep) + "]".repeat(deep));
          }
          break;
        default:
          if (isObj(m.params)) {
            const p = m.params;
            if (isObj(p.update)) p.update.sessionUpdate = rng.pick(UNKNOWN_UPDATES);
            else if (Array.isArray(p.prompt)) p.prompt.push({ type: rng.pick(UNKNOWN_UPDATES) });
            else if ("protocolVersion" in p) p.protocolVersion = this.rawOf(rng.pick(HUGE_NUMBERS));
            else m.params = JSON.parse('{"__proto__":{"polluted":1},"sessionId":"s"}') as unknown;
          }
      }
    }
  }

  /** Changes, removes or retypes one value somewhere inside `value`. */
  mutateInside(value: unknown): void {
    const slots: [Obj | unknown[], string | number][] = [];
    const walk = (v: unknown, depth: number): void => {
      if (depth > 4) return;
      if (Array.isArray(v)) {
        v.forEach((item, i) => {
          slots.push([v, i]);
          walk(item, depth + 1);
        });
      } else if (isObj(v)) {
        for (const k of Object.keys(v)) {
          slots.push([v, k]);
          walk(v[k], depth + 1);
        }
      }
    };
    walk(value, 0);
    if (slots.length === 0) return;
    const [container, key] = this.rng.pick(slots);
    const action = this.rng.int(4);
    if (action === 0 && !Array.isArray(container)) {
      Reflect.deleteProperty(container, key);
      return;
    }
    const replacement: unknown =
      action === 1
        ? this.rawOf(this.rng.pick(HUGE_NUMBERS))
        : action === 2
          ? this.rng.pick<unknown>([null, 5, "x", true, [], {}, -1])
          : this.json(2);
    if (Array.isArray(container)) container[key as number] = replacement;
    else container[key as string] = replacement;
  }

  // -- frames ----------------------------------------------------------------------------

  private text(value: unknown): Uint8Array {
    return encoder.encode(this.serialize(value));
  }

  private begin(): void {
    this.raws = [];
  }

  /** One frame of a random kind. */
  frame(): Frame {
    this.begin();
    const rng = this.rng;
    const kind = rng.weighted([
      [22, "valid-request"],
      [8, "valid-notification"],
      [22, "mutated"],
      [5, "other-method"],
      [6, "stray-response"],
      [7, "truncated"],
      [5, "random-bytes"],
      [4, "random-text"],
      [4, "blank"],
      [3, "batch"],
      [3, "primitive"],
      [2, "deep"],
      [3, "byte-mutated"],
      [3, "edge-id"],
      [3, "cancel"],
      [1, "bom"],
      [2, "salvage"],
      [0.25, "oversized"],
      [0.1, "boundary"],
    ] as const);
    let line: Uint8Array;
    let oversized: OversizedMeta | undefined;
    switch (kind) {
      case "valid-request":
        line = this.text(this.validRequest());
        break;
      case "valid-notification":
        line = this.text(this.validNotification());
        break;
      case "mutated": {
        const m = rng.chance(0.7) ? this.validRequest() : this.validNotification();
        this.mutate(m);
        line = this.text(m);
        break;
      }
      case "other-method": {
        const method = rng.chance(0.5)
          ? rng.pick(this.otherMethods)
          : rng.chance(0.5)
            ? `_${this.str(10)}`
            : rng.pick(WEIRD_METHODS);
        line = this.text(this.request(method, rng.chance(0.8) ? this.json(3) : undefined));
        break;
      }
      case "stray-response":
        line = this.text(this.strayResponse());
        break;
      case "truncated": {
        const m = rng.chance(0.7) ? this.validRequest() : this.validNotification();
        if (rng.chance(0.3)) this.mutate(m);
        const full = this.text(m);
        line = full.subarray(0, rng.range(1, Math.max(1, full.length - 1)));
        break;
      }
      case "random-bytes":
        line = this.randomBytes(rng.range(1, 200));
        break;
      case "random-text":
        line = encoder.encode(this.str(80).replace(/\n/g, ""));
        break;
      case "blank":
        line = encoder.encode(
          rng.pick(["", "", " ", "\t", "   \t ", "\u00a0", "\u3000", "\uFEFF", "\u2028"]),
        );
        break;
      case "batch": {
        const items = Array.from({ length: rng.int(4) }, () =>
          rng.chance(0.6) ? this.validRequest() : this.validNotification(),
        );
        line = this.text(rng.chance(0.2) ? [items] : items);
        break;
      }
      case "primitive":
        line = encoder.encode(
          rng.pick([
            "1",
            '"x"',
            "null",
            "true",
            "false",
            "1e400",
            "-0",
            "{}",
            '{"jsonrpc":"2.0"}',
            '{"result":1}',
            '{"error":{"code":1,"message":"x"}}',
            '""',
            "[[]]",
            "0.5",
          ]),
        );
        break;
      case "deep":
        line = this.deepFrame();
        break;
      case "byte-mutated":
        line = this.byteMutate(
          this.text(rng.chance(0.7) ? this.validRequest() : this.validNotification()),
        );
        break;
      case "edge-id": {
        const [method, params] = rng.pick(this.requests);
        line = this.text(this.request(method, params(), rng.pick(EDGE_IDS)));
        break;
      }
      case "cancel": {
        const params = rng.weighted<unknown>([
          [6, { requestId: this.rawOf(this.cancelTarget()) }],
          [1, { requestId: this.rawOf(rng.pick(INVALID_IDS)) }],
          [1, {}],
          [1, null],
          [1, [1]],
        ]);
        const m: Obj = { jsonrpc: "2.0", method: "$/cancel_request", params };
        // A cancel sent as a request is still a request: it must be answered (-32601).
        if (rng.chance(0.1)) m.id = this.rawOf(this.freshId());
        line = this.text(m);
        break;
      }
      case "salvage":
        line = this.text(this.salvageMessage());
        break;
      case "bom":
        line = concat([
          encoder.encode("\uFEFF"),
          this.text(rng.chance(0.8) ? this.validRequest() : this.validNotification()),
        ]);
        break;
      case "oversized": {
        const built = this.oversizedFrame();
        line = built.line;
        oversized = built.meta;
        break;
      }
      case "boundary": {
        const built = this.boundaryFrame();
        line = built.line;
        oversized = built.meta;
        break;
      }
    }
    if (kind !== "boundary" && rng.chance(0.15)) line = concat([line, new Uint8Array([CR])]);
    if (line.length > MAX_BYTES && oversized === undefined) {
      throw new Error(`generator bug: unplanned oversized ${kind} frame`);
    }
    return oversized === undefined ? { line, kind } : { line, kind, oversized };
  }

  randomBytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const r = this.rng.int(4);
      let b =
        r === 0
          ? this.rng.int(256)
          : r === 1
            ? 0x80 + this.rng.int(128)
            : r === 2
              ? '{}[]":,\\ 0123456789abcdefnultr'.charCodeAt(this.rng.int(31))
              : this.rng.pick([
                  0xef,
                  0xbb,
                  0xbf,
                  0xc0,
                  0xc1,
                  0xf5,
                  0xff,
                  0xed,
                  0xa0,
                  0xe2,
                  0x82,
                  CR,
                ]);
      if (b === NL) b = 0x20;
      out[i] = b;
    }
    return out;
  }

  byteMutate(bytes: Uint8Array): Uint8Array {
    const out = Array.from(bytes);
    const n = this.rng.range(1, 3);
    for (let i = 0; i < n; i++) {
      const at = this.rng.int(out.length + 1);
      switch (this.rng.int(4)) {
        case 0:
          if (out.length > 0) out[Math.min(at, out.length - 1)] = this.rng.int(256);
          break;
        case 1:
          out.splice(at, 0, ...this.randomBytes(this.rng.range(1, 6)));
          break;
        case 2:
          out.splice(at, this.rng.range(1, 8));
          break;
        default:
          out.splice(at, 0, ...out.slice(at, at + this.rng.range(1, 20)));
      }
    }
    return new Uint8Array(out.map((b) => (b === NL ? 0x20 : b)));
  }

  deepFrame(): Uint8Array {
    const depth = this.rng.range(10, 20_000);
    const arr = "[".repeat(depth) + "]".repeat(depth);
    const objDepth = Math.min(depth, 9_000);
    const obj = '{"a":'.repeat(objDepth) + "1" + "}".repeat(objDepth);
    const deep = this.rng.chance(0.5) ? arr : obj;
    const [method, params] = this.rng.pick(this.requests);
    switch (this.rng.int(6)) {
      case 0:
        return encoder.encode(deep);
      case 1:
        return this.text(this.request(method, this.rawOf(deep)));
      case 2:
        return this.text({ jsonrpc: "2.0", id: this.rawOf(deep), method });
      case 3:
        return this.text({
          jsonrpc: "2.0",
          id: this.rawOf(this.freshId()),
          method: this.rawOf(deep),
        });
      case 4: {
        const p = params();
        const holder = isObj(p) ? p : {};
        holder._meta = { deep: this.rawOf(deep) };
        return this.text(this.request(method, holder));
      }
      default:
        return this.text({ jsonrpc: "2.0", method: "_fuzz/note", params: this.rawOf(deep) });
    }
  }

  /**
   * A request or notification with invalid items in lists the schema lets a lenient
   * decoder skip, and invalid optional fields it lets it drop (at most 120 items: the
   * repair is quadratic in their number, see the report).
   */
  salvageMessage(): Obj {
    const rng = this.rng;
    const junk = (): unknown => rng.pick<unknown>([1, "x", null, [], {}, { type: "bogus" }, true]);
    const list = (valid: () => unknown): unknown[] =>
      Array.from({ length: rng.range(1, 120) }, () => (rng.chance(0.3) ? valid() : junk()));
    const badOptional = (): unknown => rng.pick<unknown>([5, "x", [], true, -1, 1.5]);
    const content = (): unknown => ({
      type: "content",
      content: { type: "text", text: this.str(5) },
    });
    const location = (): unknown => ({ path: this.path() });
    if (this.side === "client") {
      switch (rng.int(3)) {
        case 0: {
          const p = this.permissionParams() as Obj;
          Object.assign(p.toolCall as Obj, {
            content: list(content),
            locations: list(location),
            title: badOptional(),
            _meta: badOptional(),
          });
          return this.request("session/request_permission", p);
        }
        case 1:
          return {
            jsonrpc: "2.0",
            method: "session/update",
            params: {
              sessionId: this.sid(),
              update: {
                sessionUpdate: "tool_call",
                toolCallId: this.str(4),
                title: this.str(6),
                content: list(content),
                locations: list(location),
                status: badOptional(),
              },
            },
          };
        default:
          return this.request("terminal/create", {
            sessionId: this.sid(),
            command: "ls",
            args: list(() => this.str(3)),
            env: list(() => ({ name: "A", value: "b" })),
            outputByteLimit: badOptional(),
          });
      }
    }
    switch (rng.int(3)) {
      case 0:
        return this.request("session/new", {
          cwd: this.path(),
          mcpServers: list(() => ({ name: "s", command: "/bin/x", args: [], env: [] })),
          additionalDirectories: list(() => this.path()),
          _meta: badOptional(),
        });
      case 1:
        return this.request("initialize", {
          protocolVersion: 1,
          clientCapabilities: { fs: badOptional(), terminal: badOptional() },
          clientInfo: badOptional(),
        });
      default: {
        // `prompt` is a required list: an invalid block is never skipped.
        const p = this.promptParams() as Obj;
        (p.prompt as unknown[]).push(...list(() => ({ type: "text", text: "t" })));
        return this.request("session/prompt", p);
      }
    }
  }

  strayResponse(): Obj {
    const rng = this.rng;
    const idText = rng.weighted<() => string>([
      [3, () => (this.settled.length > 0 ? String(rng.pick(this.settled)) : "-7")],
      [2, () => JSON.stringify(String(this.pending[0]?.id ?? 0))],
      [2, () => rng.pick(EDGE_IDS.filter((t) => !/^-?\d/.test(t) || t.startsWith("-")))],
      [2, () => rng.pick(INVALID_IDS)],
      [2, () => String(2_000_000_000 + rng.int(1000))],
      [1, () => JSON.stringify(this.str(8))],
    ])();
    const m: Obj = { jsonrpc: "2.0", id: this.rawOf(idText) };
    switch (rng.int(6)) {
      case 0:
        m.result = this.json(2);
        break;
      case 1:
        m.error = { code: rng.range(-33000, 1000), message: this.str(10), data: this.json(1) };
        break;
      case 2:
        m.error = rng.pick<unknown>([null, "x", { code: 1.5 }, { message: "x" }]);
        break;
      case 3:
        m.result = {};
        m.error = { code: 1, message: "both" };
        break;
      case 4:
        delete m.jsonrpc;
        m.result = null;
        break;
      default:
        m.result = {};
        m.jsonrpc = "1.0";
    }
    return m;
  }

  /** The answer to one request of the connection under test, and how it must settle. */
  answerFrame(call: OutCall): Frame {
    this.begin();
    const rng = this.rng;
    const spec = call.spec;
    const id = call.id;
    const kinds: (readonly [number, string])[] = [
      [4, "result"],
      [2, "error"],
      [1, "bad-error"],
      [1, "oversized"],
      [1, "lenient"],
    ];
    if (spec.invalid !== undefined) kinds.push([2, "invalid-result"]);
    if (spec.empty === true) kinds.push([1, "null-result"]);
    const kind = rng.weighted(kinds);
    // Same id value, different spellings: 3, 3.0, 30e-1 (and -0 for 0).
    const idText =
      rng.chance(0.2) && kind !== "oversized"
        ? rng.pick([`${id}.0`, `${id * 10}e-1`, id === 0 ? "-0" : String(id)])
        : String(id);
    const m: Obj = { jsonrpc: "2.0", id: this.rawOf(idText) };
    let outcome: Outcome;
    switch (kind) {
      case "result":
        m.result = spec.valid;
        outcome = { kind: "resolve" };
        break;
      case "null-result":
        m.result = null;
        outcome = { kind: "resolve" };
        break;
      case "invalid-result":
        m.result = spec.invalid;
        outcome = { kind: "connection_error", code: "invalid_response" };
        break;
      case "error": {
        const code = rng.pick([-32800, -32000, -32603, -32601, 0, 1, 2 ** 31 - 1, -(2 ** 31)]);
        m.error = rng.chance(0.5)
          ? { code, message: this.str(10) }
          : { code, message: this.str(10), data: this.json(2) };
        outcome = { kind: "request_error", code };
        break;
      }
      case "bad-error":
        m.error = rng.pick<unknown>([
          null,
          "boom",
          5,
          [],
          { code: 1.5, message: "x" },
          { code: "1", message: "x" },
          { message: "x" },
          { code: 1 },
          { code: 1, message: 5 },
        ]);
        outcome = { kind: "connection_error", code: "invalid_response" };
        break;
      case "lenient":
        // jsonrpc missing or wrong on a response: settling it either way is acceptable.
        if (rng.chance(0.5)) delete m.jsonrpc;
        else m.jsonrpc = "1.0";
        m.result = spec.valid;
        outcome = { kind: "any" };
        break;
      default: {
        const pad = "x".repeat(MAX_BYTES + rng.range(1, 40_000));
        const line = rng.chance(0.5)
          ? `{"jsonrpc":"2.0","id":${id},"result":{"pad":"${pad}"}}`
          : `{"jsonrpc":"2.0","result":{"pad":"${pad}"},"id":${id}}`;
        return {
          line: encoder.encode(line),
          oversized: { id, hasMethod: false },
          outbound: { id, outcome: { kind: "connection_error", code: "message_too_large" } },
          kind: "answer-oversized",
        };
      }
    }
    const line = this.text(m);
    return { line, outbound: { id, outcome }, kind: `answer-${kind}` };
  }

  /** A duplicate answer to a request of the connection under test (ignored: first wins). */
  duplicateAnswer(call: OutCall): Frame {
    this.begin();
    return {
      line: this.text({ jsonrpc: "2.0", id: call.id, result: call.spec.valid }),
      kind: "answer-duplicate",
    };
  }

  /** The text of a string for an oversized line's payload: escapes, decoys, multi-byte. */
  pad(bytes: number): string {
    const parts: string[] = [];
    let size = 0;
    const pieces = [
      'abc\\"id\\":5,\\"method\\":\\"x\\"',
      "\\\\",
      "\\n",
      "\\u1234",
      "{[:,]}",
      "é中😀",
      '\\"}',
      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    ];
    while (size < bytes) {
      const piece = this.rng.pick(pieces);
      parts.push(piece);
      size += encoder.encode(piece).length;
    }
    return parts.join("");
  }

  /** An id for an oversized line: its raw text and what the scanner can recover of it. */
  oversizedId(): { text: string; meta: Pick<OversizedMeta, "id" | "maybe"> } {
    const rng = this.rng;
    switch (rng.int(10)) {
      case 0:
        return { text: "null", meta: { id: null } };
      case 1: {
        const digits = rng.pick([
          "9".repeat(15),
          "1234567890123456",
          String(Number.MAX_SAFE_INTEGER),
        ]);
        const text = rng.chance(0.5) ? digits : `-${digits}`;
        return { text, meta: { id: Number(text) } };
      }
      case 2:
        // Not recoverable: not a safe integer, or not an integer literal.
        return {
          text: rng.pick(["9007199254740993", "1.0", "1e3", "true", '{"a":1}', "[1]", "-0.5"]),
          meta: {},
        };
      case 3: {
        // A string id of exactly 256 raw characters is kept, 257 is not.
        const long = rng.chance(0.5);
        const value = "k".repeat(long ? 257 : 256);
        return { text: JSON.stringify(value), meta: long ? {} : { id: value } };
      }
      case 4: {
        // Non-ASCII raw bytes: only recoverable from the buffered (decoded) start of a line.
        const value = `é${this.freshId()}中`;
        return { text: JSON.stringify(value), meta: { id: value, maybe: true } };
      }
      case 5: {
        const value = `q"\\\n\u00e9${this.counter++}`;
        // JSON.stringify escapes the quote, backslash and newline; é becomes \u00e9 below.
        const text = JSON.stringify(value).replace("é", "\\u00e9");
        return { text, meta: { id: value } };
      }
      default: {
        const text = this.freshId();
        const value = JSON.parse(text) as JsonId;
        // freshId may add a non-ASCII character to a string id.
        const ascii = /^[\x20-\x7e]*$/.test(text);
        return { text, meta: ascii ? { id: value } : { id: value, maybe: true } };
      }
    }
  }

  oversizedFrame(): { line: Uint8Array; meta: OversizedMeta } {
    const rng = this.rng;
    const { text: idText, meta: idMeta } = this.oversizedId();
    const extra = rng.chance(0.05) ? rng.range(100_000, 400_000) : rng.range(1, 30_000);
    const pad = this.pad(MAX_BYTES + extra);
    const method = rng.chance(0.8) ? '"session/prompt"' : "5";
    const decoy = '{"id":777,"method":"x","jsonrpc":"2.0"}';
    const withId = (hasMethod: boolean): OversizedMeta => ({ ...idMeta, hasMethod });
    switch (rng.int(9)) {
      case 0:
        return {
          line: encoder.encode(
            `{"jsonrpc":"2.0","id":${idText},"method":${method},"params":{"pad":"${pad}"}}`,
          ),
          meta: withId(true),
        };
      case 1:
        return {
          line: encoder.encode(
            `{"jsonrpc":"2.0","method":${method},"params":{"decoy":${decoy},"pad":"${pad}"},"id":${idText}}`,
          ),
          meta: withId(true),
        };
      case 2:
        return {
          line: encoder.encode(
            `{ "params" : {"pad":"${pad}", "id": 1} , "id" : ${idText} , "method" : ${method} }`,
          ),
          meta: withId(true),
        };
      case 3:
        // Truncated after the id and method: still a request whose id is known.
        return {
          line: encoder.encode(
            `{"jsonrpc":"2.0","id":${idText},"method":${method},"params":{"pad":"${pad}`,
          ),
          meta: withId(true),
        };
      case 4:
        // Truncated before the id: nothing to answer.
        return {
          line: encoder.encode(`{"jsonrpc":"2.0","method":${method},"params":{"pad":"${pad}`),
          meta: { hasMethod: true },
        };
      case 5:
        return {
          line: encoder.encode(`{"jsonrpc":"2.0","method":${method},"params":{"pad":"${pad}"}}`),
          meta: { hasMethod: true },
        };
      case 6:
        // A batch: the id is not at the top level.
        return {
          line: encoder.encode(
            `[{"jsonrpc":"2.0","id":${idText},"method":${method},"params":{"pad":"${pad}"}}]`,
          ),
          meta: { hasMethod: false },
        };
      case 7: {
        // Garbage without quotes (so no keys), possibly ending inside a UTF-8 sequence.
        const bytes = this.randomBytes(MAX_BYTES + extra).map((b) => (b === 0x22 ? 0x41 : b));
        if (rng.chance(0.5)) bytes[bytes.length - 1] = 0xe2;
        return { line: bytes, meta: { hasMethod: false } };
      }
      default:
        // A response-shaped line with an id never requested: ignored.
        return {
          line: encoder.encode(
            `{"jsonrpc":"2.0","id":${String(3_000_000_000 + rng.int(1000))},"result":{"pad":"${pad}"}}`,
          ),
          meta: { hasMethod: false },
        };
    }
  }

  /** A valid request of exactly MAX-1, MAX or MAX+1 bytes (CR included when present). */
  boundaryFrame(): { line: Uint8Array; meta: OversizedMeta } {
    const idText = this.freshId();
    const target = MAX_BYTES + this.rng.range(-1, 1);
    const crlf = this.rng.chance(0.3);
    const [method, params] = this.rng.pick(this.requests);
    const p = params();
    const holder = isObj(p) ? p : {};
    holder._meta = { pad: "" };
    const base = this.serialize({ jsonrpc: "2.0", id: this.rawOf(idText), method, params: holder });
    const missing = target - encoder.encode(base).length - (crlf ? 1 : 0);
    const padded = base.replace('"pad":""', `"pad":"${"y".repeat(Math.max(0, missing))}"`);
    const line = encoder.encode(padded + (crlf ? "\r" : ""));
    const value = JSON.parse(idText) as JsonId;
    const ascii = /^[\x20-\x7e]*$/.test(idText);
    return {
      line,
      meta: ascii ? { id: value, hasMethod: true } : { id: value, maybe: true, hasMethod: true },
    };
  }
}

// ---------------------------------------------------------------------------------------
// The oracle: what each line must get back
// ---------------------------------------------------------------------------------------

/** One frame's expected answer: exactly one (min 1) or at most one (min 0) of `accept`. */
interface Expectation {
  /** Accepted answers as `idKey|class`, class `R` for a result or `E<code>`. */
  readonly accept: readonly string[];
  readonly min: 0 | 1;
  readonly frame: number;
}

type Interpretation = { accept: string[]; min: 0 | 1 } | undefined;

class Oracle {
  private readonly specs: Map<string, MethodSpec>;
  private readonly noBom = new TextDecoder("utf-8", { ignoreBOM: true });
  /** Keys of ids named by a `$/cancel_request` this round: their answer may be -32800. */
  cancelled = new Set<string>();

  /**
   * @param lenient - The connection repairs what the schema allows to repair (its
   *   default), so params invalid as received may still be handled.
   */
  constructor(
    readonly side: Side,
    readonly lenient: boolean,
  ) {
    this.specs = specsFor(side);
  }

  /** The JSON values a line may be read as (two for a line starting with a BOM). */
  readings(line: Uint8Array): { text: string; value?: unknown; ok: boolean }[] {
    const text = this.noBom.decode(line);
    const texts = text.startsWith("\uFEFF") ? [text, text.slice(1)] : [text];
    return texts.map((t) => {
      try {
        return { text: t, value: JSON.parse(t) as unknown, ok: true };
      } catch {
        return { text: t, ok: false };
      }
    });
  }

  noteCancels(line: Uint8Array): void {
    for (const r of this.readings(line)) {
      const v = r.value;
      if (r.ok && isObj(v) && v.method === "$/cancel_request" && !("id" in v)) {
        const p = v.params;
        if (isObj(p) && isValidId(p.requestId)) this.cancelled.add(idKey(p.requestId));
      }
    }
  }

  expectation(frame: Frame, index: number): Expectation | undefined {
    const line = frame.line;
    if (line.length > MAX_BYTES) {
      const meta = frame.oversized;
      if (meta === undefined) throw new Error("oversized frame without metadata");
      if (!meta.hasMethod || !("id" in meta)) return undefined;
      return {
        accept: [`${idKey(meta.id!)}|E-32600`],
        min: meta.maybe === true ? 0 : 1,
        frame: index,
      };
    }
    const readings = this.readings(line).map((r) => this.interpret(r));
    let result: Interpretation = readings[0];
    if (readings.length === 2) {
      // A leading BOM is stripped or not depending on chunk boundaries (see the report).
      const [a, b] = readings;
      if (a === undefined || b === undefined) {
        const one = a ?? b;
        result = one === undefined ? undefined : { accept: one.accept, min: 0 };
      } else {
        result = {
          accept: [...new Set([...a.accept, ...b.accept])],
          min: a.min === 1 && b.min === 1 ? 1 : 0,
        };
      }
    }
    return result === undefined ? undefined : { ...result, frame: index };
  }

  private interpret(r: { text: string; value?: unknown; ok: boolean }): Interpretation {
    if (!r.ok) {
      if (r.text.trim() === "") {
        // Blank (JSON whitespace) lines are skipped; other whitespace may be either.
        return /^[ \t\r]*$/.test(r.text) ? undefined : { accept: ["null|E-32700"], min: 0 };
      }
      return { accept: ["null|E-32700"], min: 1 };
    }
    const v = r.value;
    if (!isObj(v)) return { accept: ["null|E-32600"], min: 1 };
    const hasId = "id" in v;
    const id = v.id;
    const method = v.method;
    if (typeof method === "string") {
      if (!hasId) return undefined; // a notification
      if (!isValidId(id)) return { accept: ["null|E-32600"], min: 1 };
      const key = idKey(id);
      if (v.jsonrpc !== "2.0") return { accept: [`${key}|E-32600`], min: 1 };
      return {
        accept: this.requestClasses(method, v.params, key).map((c) => `${key}|${c}`),
        min: 1,
      };
    }
    if (method === undefined && hasId && ("result" in v || "error" in v)) return undefined; // a response
    const key = hasId && isValidId(id) ? idKey(id) : "null";
    // A method of the wrong type is an invalid request: it must be answered (JSON-RPC's own
    // example answers `{"jsonrpc": "2.0", "method": 1}` with -32600 and id null).
    if (method !== undefined) return { accept: [`${key}|E-32600`], min: 1 };
    // Neither request, notification nor response (`{}`, `{"id": 1}`, `{"result": 1}`):
    // answering -32600 or not are both fine.
    return { accept: [`${key}|E-32600`], min: 0 };
  }

  private requestClasses(method: string, params: unknown, key: string): string[] {
    const spec = this.specs.get(method);
    if (spec !== undefined) {
      const p = (params === undefined || params === null) && spec.optionalParams ? {} : params;
      const classes = spec.validateParams(p, undefined)
        ? ["R"]
        : this.lenient
          ? ["R", "E-32602"]
          : ["E-32602"];
      if (this.cancelled.has(key) && classes.includes("R")) classes.push("E-32800");
      return classes;
    }
    return method.startsWith("_") ? ["R"] : ["E-32601"];
  }

  /**
   * How each pending request of the connection under test must settle: as its answer
   * frame says, unless another line could have settled it first.
   */
  outboundOutcomes(frames: readonly Frame[], pending: readonly OutCall[]): Map<number, Outcome> {
    const ids = new Set(pending.map((c) => c.id));
    const decided = new Map<number, Outcome>();
    for (const frame of frames) {
      const touched: number[] = [];
      let certain = true;
      if (frame.line.length > MAX_BYTES) {
        const meta = frame.oversized!;
        if (!meta.hasMethod && typeof meta.id === "number" && ids.has(meta.id))
          touched.push(meta.id);
      } else {
        const readings = this.readings(frame.line);
        certain = readings.length === 1;
        for (const r of readings) {
          const v = r.value;
          if (!r.ok || !isObj(v) || v.method !== undefined || !("id" in v)) continue;
          if (!("result" in v || "error" in v)) continue;
          if (typeof v.id === "number" && ids.has(v.id)) touched.push(v.id);
        }
      }
      for (const id of touched) {
        if (decided.has(id)) continue;
        const own = frame.outbound;
        decided.set(id, certain && own?.id === id ? own.outcome : { kind: "any" });
      }
    }
    return decided;
  }
}

// ---------------------------------------------------------------------------------------
// Matching answers to expectations (max-flow with lower bounds)
// ---------------------------------------------------------------------------------------

class FlowGraph {
  private readonly head: number[] = [];
  private readonly to: number[] = [];
  private readonly cap: number[] = [];
  private readonly next: number[] = [];

  node(): number {
    this.head.push(-1);
    return this.head.length - 1;
  }

  edge(u: number, v: number, c: number): void {
    this.to.push(v, u);
    this.cap.push(c, 0);
    this.next.push(this.head[u]!, this.head[v]!);
    this.head[u] = this.to.length - 2;
    this.head[v] = this.to.length - 1;
  }

  /** Dinic's max flow from s to t. */
  maxFlow(s: number, t: number): number {
    let flow = 0;
    const n = this.head.length;
    for (;;) {
      const level = new Array<number>(n).fill(-1);
      level[s] = 0;
      const queue = [s];
      for (const u of queue) {
        for (let e = this.head[u]!; e !== -1; e = this.next[e]!) {
          if (this.cap[e]! > 0 && level[this.to[e]!] === -1) {
            level[this.to[e]!] = level[u]! + 1;
            queue.push(this.to[e]!);
          }
        }
      }
      if (level[t] === -1) return flow;
      const it = this.head.slice();
      const dfs = (u: number, f: number): number => {
        if (u === t) return f;
        for (; it[u] !== -1; it[u] = this.next[it[u]!]!) {
          const e = it[u]!;
          const v = this.to[e]!;
          if (this.cap[e]! > 0 && level[v] === level[u]! + 1) {
            const got = dfs(v, Math.min(f, this.cap[e]!));
            if (got > 0) {
              this.cap[e] = this.cap[e]! - got;
              this.cap[e ^ 1] = this.cap[e ^ 1]! + got;
              return got;
            }
          }
        }
        return 0;
      };
      for (let f = dfs(s, Infinity); f > 0; f = dfs(s, Infinity)) flow += f;
    }
  }
}

/**
 * True when the answers can be assigned to expectations so that every answer matches an
 * expectation accepting it, each expectation gets at most one answer, and every
 * expectation with `min: 1` gets one.
 */
function matches(
  answers: ReadonlyMap<string, number>,
  expectations: readonly Expectation[],
): boolean {
  const groups = new Map<
    string,
    { accept: readonly string[]; required: number; optional: number }
  >();
  for (const e of expectations) {
    const key = [...e.accept].sort().join("\u0000");
    let g = groups.get(key);
    if (g === undefined) groups.set(key, (g = { accept: e.accept, required: 0, optional: 0 }));
    if (e.min === 1) g.required++;
    else g.optional++;
  }
  const graph = new FlowGraph();
  const s = graph.node();
  const t = graph.node();
  const ss = graph.node();
  const tt = graph.node();
  const classNodes = new Map<string, number>();
  let totalAnswers = 0;
  for (const [cls, count] of answers) {
    const n = graph.node();
    classNodes.set(cls, n);
    graph.edge(ss, n, count);
    totalAnswers += count;
  }
  let totalRequired = 0;
  for (const g of groups.values()) {
    const n = graph.node();
    for (const cls of g.accept) {
      const c = classNodes.get(cls);
      if (c !== undefined) graph.edge(c, n, Infinity);
    }
    graph.edge(n, tt, g.required);
    graph.edge(n, t, g.optional);
    totalRequired += g.required;
  }
  graph.edge(s, tt, totalAnswers);
  graph.edge(ss, t, totalRequired);
  graph.edge(t, s, Infinity);
  return graph.maxFlow(ss, tt) === totalAnswers + totalRequired;
}

// ---------------------------------------------------------------------------------------
// The peer: writes raw bytes, reads and checks raw output
// ---------------------------------------------------------------------------------------

interface Answer {
  readonly id: JsonId;
  readonly cls: string;
  readonly raw: string;
}

class Peer {
  readonly toSut = new TransformStream<Uint8Array, Uint8Array>();
  readonly fromSut = new TransformStream<Uint8Array, Uint8Array>();
  readonly writer = this.toSut.writable.getWriter();
  /** Answers (responses of the connection under test) of the current round. */
  answers: Answer[] = [];
  readonly sentinels = new Map<string, Answer>();
  /** Requests the connection under test sent, in order. */
  readonly outbound: { id: number; method: string }[] = [];
  notifications = 0;
  outputLines = 0;
  outputBytes = 0;
  readonly problems: string[] = [];
  ended = false;
  private wake: (() => void) | undefined;
  readonly done: Promise<void>;

  constructor() {
    this.done = this.readLoop();
  }

  private async readLoop(): Promise<void> {
    const reader = this.fromSut.readable.getReader();
    const decoder = new TextDecoder("utf-8", { fatal: true });
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        this.outputBytes += value.length;
        buffer += decoder.decode(value, { stream: true });
        let nl = buffer.indexOf("\n");
        while (nl !== -1) {
          this.onLine(buffer.slice(0, nl));
          buffer = buffer.slice(nl + 1);
          nl = buffer.indexOf("\n");
        }
        this.wake?.();
      }
      if (buffer !== "")
        this.problems.push(`output ended without a newline: ${buffer.slice(0, 200)}`);
    } catch (error) {
      this.problems.push(`reading the output failed: ${String(error)}`);
    }
    this.ended = true;
    this.wake?.();
  }

  private onLine(line: string): void {
    this.outputLines++;
    let m: unknown;
    try {
      m = JSON.parse(line);
    } catch {
      this.problems.push(`output line is not JSON: ${line.slice(0, 200)}`);
      return;
    }
    if (!isObj(m) || m.jsonrpc !== "2.0") {
      this.problems.push(`output line is not a JSON-RPC 2.0 object: ${line.slice(0, 200)}`);
      return;
    }
    if (typeof m.method === "string") {
      if ("id" in m) {
        if (typeof m.id !== "number")
          this.problems.push(`outbound request with a non-numeric id: ${line}`);
        else this.outbound.push({ id: m.id, method: m.method });
      } else {
        this.notifications++;
      }
      return;
    }
    const hasResult = "result" in m;
    const error = m.error;
    const validError =
      isObj(error) &&
      Number.isInteger(error.code) &&
      typeof error.message === "string" &&
      Object.keys(error).every((k) => k === "code" || k === "message" || k === "data");
    if (!isValidId(m.id) || hasResult === "error" in m || (!hasResult && !validError)) {
      this.problems.push(`malformed response: ${line.slice(0, 300)}`);
      return;
    }
    const answer: Answer = {
      id: m.id,
      cls: hasResult ? "R" : `E${String((error as Obj).code)}`,
      raw: line.length > 300 ? line.slice(0, 300) + "…" : line,
    };
    if (typeof m.id === "string" && m.id.startsWith("sentinel-")) this.sentinels.set(m.id, answer);
    else this.answers.push(answer);
  }

  /** Waits until `predicate` holds (re-checked on output), or `timeoutMs` passes. */
  async waitFor(predicate: () => boolean, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (this.ended || Date.now() >= deadline) return predicate();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(50, Math.max(1, deadline - Date.now())));
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
    return true;
  }

  async write(bytes: Uint8Array): Promise<void> {
    await this.writer.write(bytes);
  }
}

/** Cuts `bytes` into chunks of random sizes; the regime varies per round. */
function chunk(rng: Rng, bytes: Uint8Array, regime: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 0;
  while (at < bytes.length) {
    let size: number;
    if (regime === 0) {
      size = rng.chance(0.5) ? rng.range(1, 4) : rng.range(5, 256);
    } else if (regime === 1) {
      size = rng.weighted<() => number>([
        [15, () => rng.range(1, 4)],
        [25, () => rng.range(5, 200)],
        [35, () => rng.range(200, 8192)],
        [25, () => rng.range(8192, 100_000)],
      ])();
    } else {
      size = rng.range(4096, 262_144);
    }
    out.push(bytes.subarray(at, Math.min(bytes.length, at + size)));
    at += size;
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Running one side
// ---------------------------------------------------------------------------------------

interface Stats {
  side: Side;
  lenient: boolean;
  rounds: number;
  frames: number;
  bytes: number;
  chunks: number;
  answers: number;
  requiredAnswers: number;
  byClass: Record<string, number>;
  byKind: Record<string, number>;
  outbound: number;
  outboundByOutcome: Record<string, number>;
  notificationsFromSut: number;
  ms: number;
}

const failures: string[] = [];

function bump(record: Record<string, number>, key: string, by = 1): void {
  record[key] = (record[key] ?? 0) + by;
}

function describeMismatch(
  frames: readonly Frame[],
  expectations: readonly Expectation[],
  answers: readonly Answer[],
): string {
  const answersByKey = new Map<string, Answer[]>();
  for (const a of answers) {
    const k = idKey(a.id);
    let list = answersByKey.get(k);
    if (list === undefined) answersByKey.set(k, (list = []));
    list.push(a);
  }
  const expByKey = new Map<string, Expectation[]>();
  for (const e of expectations) {
    for (const k of new Set(e.accept.map((c) => c.slice(0, c.lastIndexOf("|"))))) {
      let list = expByKey.get(k);
      if (list === undefined) expByKey.set(k, (list = []));
      list.push(e);
    }
  }
  const lines: string[] = [];
  for (const key of new Set([...answersByKey.keys(), ...expByKey.keys()])) {
    const got = answersByKey.get(key) ?? [];
    const exp = expByKey.get(key) ?? [];
    const accepted = new Set(exp.flatMap((e) => e.accept));
    const min = exp.filter(
      (e) => e.min === 1 && e.accept.every((c) => c.startsWith(key + "|")),
    ).length;
    const bad = got.filter((a) => !accepted.has(`${key}|${a.cls}`));
    if (got.length < min || got.length > exp.length || bad.length > 0) {
      lines.push(
        `id ${key}: ${got.length} answers, expected ${min}..${exp.length}` +
          (bad.length > 0 ? `; unexpected: ${bad.map((a) => a.raw).join(" ")}` : ""),
      );
      for (const e of exp.slice(0, 4)) {
        lines.push(
          `    frame #${e.frame} (${frames[e.frame]!.kind}) ${preview(frames[e.frame]!.line)} accepts ${e.accept.join(",")} min ${e.min}`,
        );
      }
      for (const a of got.slice(0, 4)) lines.push(`    got ${a.raw}`);
      if (lines.length > 60) break;
    }
  }
  return lines.join("\n") || "(no per-id mismatch found; the combined assignment failed)";
}

function checkOutcome(call: OutCall, outcome: Outcome): string | undefined {
  const what = `${call.spec.method} (id ${call.id})`;
  if (call.status === "pending") return `${what} never settled`;
  const error = call.error;
  switch (outcome.kind) {
    case "any":
      return undefined;
    case "resolve":
      return call.status === "resolved" ? undefined : `${what} rejected: ${String(error)}`;
    case "request_error":
      return call.status === "rejected" &&
        error instanceof RequestError &&
        error.code === outcome.code
        ? undefined
        : `${what}: expected RequestError ${outcome.code}, got ${call.status} ${String(error)}`;
    case "connection_error":
      return call.status === "rejected" &&
        error instanceof ConnectionError &&
        error.code === outcome.code
        ? undefined
        : `${what}: expected ConnectionError ${outcome.code}, got ${call.status} ${String(error)}`;
  }
}

async function fuzzSide(
  side: Side,
  seed: number,
  totalFrames: number,
  lenient: boolean,
): Promise<Stats> {
  const started = Date.now();
  const rng = new Rng(seed ^ (side === "agent" ? 0x0a6e47 : 0xc11e47) ^ (lenient ? 0 : 0x5a5a5a));
  const gen = new Gen(rng, side);
  const peer = new Peer();
  // The test owns both pipes: the SUT's output ends with the connection (the peer waits
  // for that end), as the caller asks for it.
  const stream = ndJsonStream(peer.fromSut.writable, peer.toSut.readable, {
    maxMessageBytes: MAX_BYTES,
    closeOutput: true,
  });
  let sut: AgentSideConnection | ClientSideConnection;
  // `lenient: true` is the default; pass it only to exercise the strict mode.
  const options = lenient ? undefined : { lenient: false };
  if (side === "agent") sut = new AgentSideConnection((c) => makeAgent(c), stream, options);
  else sut = new ClientSideConnection(() => makeClient(), stream, options);
  const outSpecs = side === "agent" ? AGENT_OUT : CLIENT_OUT;
  const stats: Stats = {
    side,
    lenient,
    rounds: 0,
    frames: 0,
    bytes: 0,
    chunks: 0,
    answers: 0,
    requiredAnswers: 0,
    byClass: {},
    byKind: {},
    outbound: 0,
    outboundByOutcome: {},
    notificationsFromSut: 0,
    ms: 0,
  };
  const sentinel = (name: string): Uint8Array =>
    encoder.encode(
      side === "agent"
        ? `{"jsonrpc":"2.0","id":"sentinel-${name}","method":"initialize","params":{"protocolVersion":1}}\n`
        : `{"jsonrpc":"2.0","id":"sentinel-${name}","method":"fs/read_text_file","params":{"sessionId":"s","path":"/x"}}\n`,
    );
  const fail = (round: number, message: string): never => {
    const mode = lenient ? "lenient" : "strict";
    const text = `[${side} side, ${mode}, seed ${seed}, round ${round}] ${message}`;
    failures.push(text);
    throw new Error(text);
  };

  for (let round = 0; stats.frames < totalFrames; round++) {
    stats.rounds++;
    // 1. The connection under test sends a few requests of its own.
    const calls: OutCall[] = [];
    const before = peer.outbound.length;
    for (let i = rng.range(2, 8); i > 0; i--) {
      const spec = rng.pick(outSpecs);
      const call: OutCall = { spec, id: -1, status: "pending" };
      spec.call(sut).then(
        () => (call.status = "resolved"),
        (error: unknown) => {
          call.status = "rejected";
          call.error = error;
        },
      );
      calls.push(call);
    }
    if (!(await peer.waitFor(() => peer.outbound.length >= before + calls.length, 5000))) {
      fail(
        round,
        `the connection sent ${peer.outbound.length - before} of ${calls.length} requests`,
      );
    }
    calls.forEach((call, i) => {
      const sent = peer.outbound[before + i]!;
      if (sent.method !== call.spec.method)
        fail(round, `request ${i} was ${sent.method}, expected ${call.spec.method}`);
      call.id = sent.id;
    });
    gen.pending = calls;
    stats.outbound += calls.length;

    // 2. This round's frames, with the answers to those requests at random places.
    const count = Math.min(FRAMES_PER_ROUND, totalFrames - stats.frames);
    const frames: Frame[] = [];
    for (let i = 0; i < count; i++) frames.push(gen.frame());
    for (const call of calls) {
      const at = rng.int(frames.length + 1);
      frames.splice(at, 0, gen.answerFrame(call));
      if (rng.chance(0.3))
        frames.splice(rng.range(at + 1, frames.length), 0, gen.duplicateAnswer(call));
    }
    stats.frames += frames.length;

    // 3. What each line must get back.
    const oracle = new Oracle(side, lenient);
    for (const f of frames) if (f.line.length <= MAX_BYTES) oracle.noteCancels(f.line);
    const expectations: Expectation[] = [];
    frames.forEach((f, i) => {
      bump(stats.byKind, f.kind);
      const e = oracle.expectation(f, i);
      if (e !== undefined) expectations.push(e);
    });
    const outcomes = oracle.outboundOutcomes(frames, calls);
    const required = expectations.filter((e) => e.min === 1).length;
    stats.requiredAnswers += required;

    // 4. Write the bytes in random chunks, then a sentinel request.
    const parts: Uint8Array[] = [];
    for (const f of frames) parts.push(f.line, new Uint8Array([NL]));
    parts.push(sentinel(`${round}a`));
    const bytes = concat(parts);
    stats.bytes += bytes.length;
    const chunks = chunk(rng, bytes, round % 3);
    stats.chunks += chunks.length;
    peer.answers = [];
    for (const c of chunks) await peer.write(c);
    if (!(await peer.waitFor(() => peer.sentinels.has(`sentinel-${round}a`), 30_000))) {
      fail(
        round,
        `the sentinel request was never answered (closed: ${String(sut.signal.aborted)})`,
      );
    }
    await peer.waitFor(() => peer.answers.length >= required, 5_000);
    // A second sentinel and a short pause catch answers that come late or twice.
    await sleep(5);
    await peer.write(sentinel(`${round}b`));
    await peer.waitFor(() => peer.sentinels.has(`sentinel-${round}b`), 10_000);
    await sleep(2);

    // 5. Check.
    if (peer.problems.length > 0)
      fail(round, `malformed output:\n${peer.problems.slice(0, 10).join("\n")}`);
    if (unexpectedErrors.length > 0)
      fail(round, `unhandled: ${unexpectedErrors.map(String).join("\n")}`);
    if (sut.signal.aborted) fail(round, `the connection closed: ${String(sut.signal.reason)}`);
    const answers = peer.answers;
    const byClass = new Map<string, number>();
    for (const a of answers) {
      const k = `${idKey(a.id)}|${a.cls}`;
      byClass.set(k, (byClass.get(k) ?? 0) + 1);
      bump(stats.byClass, a.cls);
    }
    stats.answers += answers.length;
    if (!matches(byClass, expectations)) {
      fail(
        round,
        `answers do not match the frames (${answers.length} answers, ${required} required, ` +
          `${expectations.length} possible):\n${describeMismatch(frames, expectations, answers)}`,
      );
    }
    for (const call of calls) {
      const outcome = outcomes.get(call.id);
      if (outcome === undefined) fail(round, `generator bug: no answer frame for ${call.id}`);
      const problem = checkOutcome(call, outcome!);
      if (problem !== undefined) fail(round, problem);
      bump(stats.outboundByOutcome, outcome!.kind);
      gen.settled.push(call.id);
    }
    if (gen.settled.length > 200) gen.settled.splice(0, gen.settled.length - 200);
  }

  // The connection is alive: a final valid request round-trips.
  await peer.write(sentinel("final"));
  if (!(await peer.waitFor(() => peer.sentinels.get("sentinel-final")?.cls === "R", 10_000))) {
    fail(stats.rounds, "the final request was not answered with a result");
  }
  expect(sut.signal.aborted).toBe(false);

  // A last line without a newline is still handled when the input ends; then it closes.
  const last = sentinel("eof");
  await peer.write(last.subarray(0, last.length - 1));
  await peer.writer.close();
  if (!(await peer.waitFor(() => peer.sentinels.get("sentinel-eof")?.cls === "R", 10_000))) {
    fail(stats.rounds, "an unterminated last line was not answered");
  }
  await sut.closed;
  await peer.done;
  expect(peer.problems).toEqual([]);
  stats.notificationsFromSut = peer.notifications;
  stats.ms = Date.now() - started;
  return stats;
}

// ---------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------

const unexpectedErrors: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unexpectedErrors.push(reason);
};

describe("frame fuzzing (raw bytes at both sides)", () => {
  beforeAll(() => {
    process.on("unhandledRejection", onUnhandled);
    process.on("uncaughtException", onUnhandled);
  });
  afterAll(() => {
    process.off("unhandledRejection", onUnhandled);
    process.off("uncaughtException", onUnhandled);
    if (failures.length > 0) console.error(`Reproduce with ACP_FUZZ_SEED=${SEED}`);
  });

  // Each side gets FRAMES_PER_SIDE frames, half on a connection with default options
  // (lenient decoding) and half on one with `lenient: false`.
  const cases = [
    ["agent", true],
    ["agent", false],
    ["client", true],
    ["client", false],
  ] as const;
  for (const [side, lenient] of cases) {
    const frames = Math.ceil(FRAMES_PER_SIDE / 2);
    it(
      `${side === "agent" ? "AgentSideConnection" : "ClientSideConnection"} (${lenient ? "default options" : "lenient: false"}) survives ${frames} fuzzed frames`,
      { timeout: 180_000 },
      async () => {
        const stats = await fuzzSide(side, SEED, frames, lenient);
        // Let stray timers and rejections surface before judging.
        await sleep(20);
        expect(unexpectedErrors).toEqual([]);
        expect(stats.frames).toBeGreaterThanOrEqual(frames);
        // The generator is not vacuous: every class of answer and frame actually occurred.
        for (const cls of ["R", "E-32700", "E-32600", "E-32601", "E-32602", "E-32800"]) {
          expect(stats.byClass[cls] ?? 0, `answers of class ${cls}`).toBeGreaterThan(0);
        }
        expect(stats.byKind.oversized ?? 0).toBeGreaterThan(0);
        if (REPORT) console.log(JSON.stringify(stats, null, 2));
      },
    );
  }

  it("the generators' valid params are valid", () => {
    for (const side of ["agent", "client"] as const) {
      const gen = new Gen(new Rng(SEED), side);
      const specs = specsFor(side);
      for (let i = 0; i < 2000; i++) {
        const m = gen.validRequest();
        const text = gen.serialize(m);
        const parsed = JSON.parse(text) as Obj;
        const spec = specs.get(parsed.method as string)!;
        const params =
          (parsed.params === undefined || parsed.params === null) && spec.optionalParams
            ? {}
            : parsed.params;
        expect(spec.validateParams(params, undefined), text).toBe(true);
      }
    }
  });
});

describe("frame fuzzing: byte order marks", () => {
  // A line starting with U+FEFF must get the same answer whatever the chunk boundaries
  // (the framer strips a leading BOM from every line; it once depended on where a decode
  // call started).
  it("a BOM at the start of a line is treated the same whatever the chunking", async () => {
    const peer = new Peer();
    const stream = ndJsonStream(peer.fromSut.writable, peer.toSut.readable);
    const sut = new AgentSideConnection((c) => makeAgent(c), stream);
    const req = (id: number): string =>
      `{"jsonrpc":"2.0","id":${id},"method":"initialize","params":{"protocolVersion":1}}`;
    await peer.write(encoder.encode(`\uFEFF${req(1)}\n`)); // BOM at a chunk start
    await peer.write(encoder.encode(`${req(2)}\n\uFEFF${req(3)}\n`)); // BOM mid-chunk
    await peer.waitFor(() => peer.answers.length >= 3, 2000);
    sut.close();
    const classes = peer.answers.map((a) => `${String(a.id)}|${a.cls}`);
    expect(classes).toContain("2|R");
    // Either both BOM lines are requests (ids 1 and 3) or both are parse errors.
    const firstOk = classes.includes("1|R");
    const thirdOk = classes.includes("3|R");
    expect(firstOk).toBe(thirdOk);
  });
});
