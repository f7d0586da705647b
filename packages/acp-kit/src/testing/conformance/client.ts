/**
 * The client side of a conformance run: how the checker answers the agent's requests
 * (files read from the sessions' directory, writes kept in memory, fake terminals that
 * run nothing, permission by policy), and what it notes on the way: calls the client did
 * not advertise, and malformed calls.
 *
 * @module
 */
import { readFile } from "node:fs/promises";
import { isAbsolute, relative } from "node:path";
import { METHOD_SPECS } from "../../schema/methods.gen.js";
import type { PermissionOption } from "../../schema/types.gen.js";
import { validate } from "../../schema/validate.js";
import { validateV2 } from "../../schema/v2/validate.js";
import type { ValidatedType } from "../../schema/validators.gen.js";
import type { WireRecord } from "./log.js";
import type { InboundAnswer, InboundRequest } from "./wire.js";

/** How the checker answers permission requests: pick an allow option, or a reject option. */
export type CheckerPermission = "allow" | "reject";

/** A malformed request the agent sent. */
export interface RequestProblem {
  /** The request. */
  readonly record: WireRecord;
  /** What is wrong with it. */
  readonly problem: string;
}

/** What the fake terminals print. */
export const FAKE_TERMINAL_OUTPUT =
  "acp-kit check: this conformance client does not run commands.\n";

const CLIENT_REQUESTS = new Map(
  METHOD_SPECS.filter((spec) => spec.handledBy === "client" && spec.kind === "request").map(
    (spec) => [spec.method, spec],
  ),
);

function fail(code: number, message: string): InboundAnswer {
  return { error: { code, message } };
}

function field(params: unknown, name: string): unknown {
  return typeof params === "object" && params !== null
    ? (params as Record<string, unknown>)[name]
    : undefined;
}

function pick(
  options: readonly PermissionOption[],
  kinds: readonly string[],
): PermissionOption | undefined {
  for (const kind of kinds) {
    const option = options.find((candidate) => candidate.kind === kind);
    if (option !== undefined) return option;
  }
  return options[0];
}

/** Answers one connection's requests from the agent and records what it sees. */
export class CheckerClient {
  /** Session ids the agent gave on this connection. */
  readonly sessions = new Set<string>();
  /** fs/terminal/elicitation requests made without the capability. */
  readonly ungated: WireRecord[] = [];
  /** fs, terminal and permission requests received. */
  readonly calls: WireRecord[] = [];
  /** Malformed requests. */
  readonly problems: RequestProblem[] = [];
  private readonly terminals = new Map<string, "open" | "released">();
  /** What the agent wrote: kept in memory, never on disk (the directory may be the user's). */
  private readonly written = new Map<string, string>();
  private held: { sessionId: string; waiting: (() => void)[] } | undefined;

  /**
   * Creates the client side of one connection.
   *
   * @param capable - Whether the connection advertised fs (read and write) and terminals.
   * @param workdir - The run's temporary directory: the only place files are served from.
   * @param permission - How permission requests are answered.
   * @param protocol - The protocol version of the connection (v2 serves only permissions).
   */
  constructor(
    private readonly capable: boolean,
    private readonly workdir: string,
    private readonly permission: CheckerPermission,
    private readonly protocol: 1 | 2 = 1,
  ) {}

  /** Terminals created and never released. */
  get unreleasedTerminals(): string[] {
    return [...this.terminals].filter(([, state]) => state === "open").map(([id]) => id);
  }

  /**
   * Holds the requests of `sessionId` unanswered (a slow user) until {@link release}:
   * a turn then cannot finish before the checker cancels it.
   */
  hold(sessionId: string): void {
    this.held = { sessionId, waiting: [] };
  }

  /** Answers the held requests: permission requests with `cancelled`, others normally. */
  release(): void {
    const held = this.held;
    this.held = undefined;
    for (const resume of held?.waiting ?? []) resume();
  }

  /** The handler to give the {@link WireConnection}. */
  readonly handle = async (request: InboundRequest): Promise<InboundAnswer> => {
    const { method, params, record } = request;
    const family = method.split("/")[0];
    if (this.protocol === 2) return this.handleV2(request);
    const gated = family === "fs" || family === "terminal";
    if ((gated && !this.capable) || family === "elicitation") {
      this.ungated.push(record);
      return fail(-32601, `Method not found: ${method} (the client did not advertise it)`);
    }
    const spec = CLIENT_REQUESTS.get(method);
    if (spec === undefined || !(gated || method === "session/request_permission")) {
      return fail(-32601, `Method not found: ${method}`);
    }
    this.calls.push(record);
    const result = validate(spec.paramsType as ValidatedType, params);
    if (!result.ok) {
      const issue = result.issues[0];
      this.problem(
        record,
        `params do not match ${spec.paramsType}: ${issue?.path ?? ""} ${issue?.message ?? ""}`,
      );
      return fail(-32602, `Invalid params for ${method}`);
    }
    const sessionId = field(params, "sessionId");
    if (typeof sessionId === "string" && !this.sessions.has(sessionId)) {
      this.problem(record, `unknown sessionId ${JSON.stringify(sessionId)}`);
    }
    const held = this.held;
    let cancelled = false;
    if (held !== undefined && held.sessionId === sessionId) {
      await new Promise<void>((resume) => held.waiting.push(resume));
      cancelled = true;
    }
    return this.answer(method, params, record, cancelled);
  };

  /**
   * In v2 the client serves only `session/request_permission` (and `elicitation/*` when
   * advertised, which the checker never does): v2 has no client file system or terminals.
   */
  private async handleV2(request: InboundRequest): Promise<InboundAnswer> {
    const { method, params, record } = request;
    if (method.startsWith("elicitation/")) {
      this.ungated.push(record);
      return fail(-32601, `Method not found: ${method} (the client did not advertise it)`);
    }
    if (method !== "session/request_permission") return fail(-32601, `Method not found: ${method}`);
    this.calls.push(record);
    const result = validateV2("RequestPermissionRequest", params);
    if (!result.ok) {
      const issue = result.issues[0];
      this.problem(
        record,
        `params do not match the v2 RequestPermissionRequest: ${issue?.path ?? ""} ${issue?.message ?? ""}`,
      );
      return fail(-32602, `Invalid params for ${method}`);
    }
    const sessionId = field(params, "sessionId");
    if (typeof sessionId === "string" && !this.sessions.has(sessionId)) {
      this.problem(record, `unknown sessionId ${JSON.stringify(sessionId)}`);
    }
    const held = this.held;
    let cancelled = false;
    if (held !== undefined && held.sessionId === sessionId) {
      await new Promise<void>((resume) => held.waiting.push(resume));
      cancelled = true;
    }
    return this.answer(method, params, record, cancelled);
  }

  private problem(record: WireRecord, problem: string): void {
    this.problems.push({ record, problem });
  }

  private async answer(
    method: string,
    params: unknown,
    record: WireRecord,
    cancelled: boolean,
  ): Promise<InboundAnswer> {
    if (method === "session/request_permission") {
      if (cancelled) return { result: { outcome: { outcome: "cancelled" } } };
      const options = (field(params, "options") ?? []) as PermissionOption[];
      const kinds =
        this.permission === "allow"
          ? ["allow_once", "allow_always"]
          : ["reject_once", "reject_always"];
      const option = pick(options, kinds);
      if (option === undefined) return { result: { outcome: { outcome: "cancelled" } } };
      return { result: { outcome: { outcome: "selected", optionId: option.optionId } } };
    }
    if (method.startsWith("fs/")) return this.file(method, params, record);
    return this.terminal(method, params, record);
  }

  private async file(method: string, params: unknown, record: WireRecord): Promise<InboundAnswer> {
    const path = String(field(params, "path"));
    if (!isAbsolute(path)) {
      this.problem(record, `path ${JSON.stringify(path)} is not absolute`);
      return fail(-32602, "The path must be absolute");
    }
    const inside = relative(this.workdir, path);
    const confined = inside !== "" && !inside.startsWith("..") && !isAbsolute(inside);
    if (method === "fs/write_text_file") {
      if (!confined) return fail(-32602, "This client only writes inside the session directory");
      this.written.set(path, String(field(params, "content")));
      return { result: {} };
    }
    const line = field(params, "line");
    if (line === 0) this.problem(record, "line 0 (lines are 1-based)");
    let content: string;
    try {
      if (!confined) throw new Error("outside");
      content = this.written.get(path) ?? (await readFile(path, "utf8"));
    } catch {
      return { error: { code: -32002, message: "Resource not found", data: { path } } };
    }
    const limit = field(params, "limit");
    if (typeof line === "number" || typeof limit === "number") {
      const lines = content.split(/(?<=\n)/);
      const from = typeof line === "number" ? Math.max(0, line - 1) : 0;
      content = lines.slice(from, typeof limit === "number" ? from + limit : undefined).join("");
    }
    return { result: { content } };
  }

  private terminal(method: string, params: unknown, record: WireRecord): InboundAnswer {
    if (method === "terminal/create") {
      const cwd = field(params, "cwd");
      if (typeof cwd === "string" && !isAbsolute(cwd))
        this.problem(record, `cwd ${JSON.stringify(cwd)} is not absolute`);
      const terminalId = `term-${this.terminals.size + 1}`;
      this.terminals.set(terminalId, "open");
      return { result: { terminalId } };
    }
    const terminalId = String(field(params, "terminalId"));
    const state = this.terminals.get(terminalId);
    if (state !== "open") {
      this.problem(
        record,
        state === undefined
          ? `unknown terminalId ${terminalId}`
          : `terminal ${terminalId} used after its release`,
      );
      return fail(-32002, `Unknown terminal ${terminalId}`);
    }
    const exit = { exitCode: 0, signal: null };
    switch (method) {
      case "terminal/output":
        return { result: { output: FAKE_TERMINAL_OUTPUT, truncated: false, exitStatus: exit } };
      case "terminal/wait_for_exit":
        return { result: exit };
      case "terminal/release":
        this.terminals.set(terminalId, "released");
        return { result: {} };
      default:
        return { result: {} };
    }
  }
}
