/**
 * What the client probe's steps share: the connection, the session, the client's
 * capabilities, the cancellation state, time limits, and small helpers to talk and to
 * quote what went over the wire.
 *
 * @module
 */
import { RequestError } from "../../jsonrpc/errors.js";
import type { AgentSideConnection } from "../../peer/agent-side-connection.js";
import type * as schema from "../../schema/types.gen.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConformanceReport, ExchangeEntry } from "../conformance/report.js";

/** Time limits of the client probe, in milliseconds. */
export interface ClientProbeTimeouts {
  /** For a terminal command to exit (default 30 000). */
  readonly terminalMs: number;
  /** For the user to answer a permission request or a confirmation (default 600 000). */
  readonly answerMs: number;
  /** For the user to press Cancel in the cancel step (default 300 000). */
  readonly cancelStepMs: number;
}

/** The defaults of {@link ClientProbeTimeouts}. */
export const DEFAULT_CLIENT_PROBE_TIMEOUTS: ClientProbeTimeouts = {
  terminalMs: 30_000,
  answerMs: 600_000,
  cancelStepMs: 300_000,
};

/** One probe run in one session. */
export interface ProbeContext {
  /** The connection to the client. */
  readonly connection: AgentSideConnection;
  /** The session the prompt came in. */
  readonly sessionId: string;
  /** Its working directory. */
  readonly cwd: string;
  /** What the client advertised. */
  readonly capabilities: schema.ClientCapabilities;
  /** The time limits. */
  readonly timeouts: ClientProbeTimeouts;
  /** True once `session/cancel` arrived for the session during this run. */
  cancelled(): boolean;
  /** Resolves when `session/cancel` arrives for the session. */
  readonly cancellation: Promise<void>;
  /** Sends one `session/update`. */
  send(update: schema.SessionUpdate): Promise<void>;
  /** Says something (an `agent_message_chunk` with Markdown text). */
  say(text: string): Promise<void>;
  /** Quotes a request and its answer for a report exchange. */
  quote(method: string, params: unknown, answer: unknown): ExchangeEntry[];
}

/** Says in words why a request failed. */
export function errorText(error: unknown): string {
  if (error instanceof RequestError) return `error ${error.code} (${error.message})`;
  return error instanceof Error ? error.message : String(error);
}

/** The error as something to quote in an exchange. */
export function errorAnswer(error: unknown): unknown {
  if (error instanceof RequestError) {
    return { error: { code: error.code, message: error.message, data: error.data } };
  }
  return { error: errorText(error) };
}

/** Runs `call`; resolves with `{ ok: true, value }` or `{ ok: false, error }`. */
export async function attempt<T>(
  call: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Creates the quoting helper of a run: numbers its entries in order. */
export function quoter(): ProbeContext["quote"] {
  let seq = 0;
  const text = (value: unknown): string => {
    const json = JSON.stringify(value) as string | undefined;
    const line = json ?? "undefined";
    return line.length <= 400 ? line : `${line.slice(0, 400)}… (${line.length} chars)`;
  };
  return (method, params, answer) => [
    {
      kind: "message",
      seq: ++seq,
      connection: "probe",
      direction: "agent->client",
      text: text({ method, params }),
    },
    {
      kind: "message",
      seq: ++seq,
      connection: "probe",
      direction: "client->agent",
      text: text(answer),
    },
  ];
}

/** Options of the client probe. */
export interface ClientProbeOptions {
  /** Where the JSON report goes (default {@link defaultProbeReportPath}). */
  readonly reportPath?: string;
  /** Time limits; see {@link ClientProbeTimeouts}. */
  readonly timeouts?: Partial<ClientProbeTimeouts>;
  /** Called with each report (and the path it was written to, if it could be). */
  readonly onReport?: (report: ConformanceReport, path: string | undefined) => void;
}

/** The default path of the probe's JSON report: `acp-kit-client-report.json` in the tmpdir. */
export function defaultProbeReportPath(): string {
  return join(tmpdir(), "acp-kit-client-report.json");
}
