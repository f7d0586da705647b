/**
 * {@link ProxySession}: one run of the trace proxy once its agent has started: the three
 * byte pumps, the taps that record them, and how the run ends.
 *
 * Ending: when the client closes the proxy's stdin, the agent's stdin is closed too and the
 * agent gets `stdinGraceMs` to exit before its group is ended (SIGTERM, then SIGKILL after
 * `killGraceMs`). A SIGINT, SIGTERM or SIGHUP to the proxy is passed on to the group (a
 * second one sends SIGKILL). Once the agent has exited, what it wrote is forwarded to the
 * end, whatever it left running in its group is ended, and the proxy's output is flushed.
 *
 * @module
 */
import type { Readable, Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { settlesWithin } from "acp-kit/internal";
import { LineTap } from "./line-tap.js";
import { pump, type Pump } from "./pump.js";
import type { TraceRecorder } from "./trace-recorder.js";
import type { ExitStatus, TracedAgent } from "./traced-agent.js";

/** What a {@link ProxySession} needs besides the agent and the recorder. */
export interface ProxySessionSettings {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly maxLineBytes: number;
  readonly recordStderr: boolean;
  readonly stdinGraceMs: number;
  readonly killGraceMs: number;
  readonly handleSignals: boolean;
}

/** The signals the proxy passes on to the agent's group. */
const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
/** How long the end of the agent's stdout and stderr may lag behind its exit. */
const OUTPUT_WAIT_MS = 2000;
/** How long the proxy waits for its own output to be taken by the client. */
const FLUSH_WAIT_MS = 10_000;

/** The window over which recording time is budgeted, in ms. */
const RECORDING_WINDOW_MS = 100;
/** How much of each window recording may take, in ms: the rest is for forwarding and timers. */
const RECORDING_SHARE_MS = 40;
/** Lines per window always recorded: shedding is for floods, not for one big message. */
const RECORDING_FLOOD_LINES = 64;

/**
 * Bounds the time the taps spend recording: once recording took its share of the current
 * window (checked before every line), chunks are only scanned for line ends, and their
 * lines counted as shed, until the next window. Forwarding, signals and the grace timers
 * never wait for the trace.
 */
class RecordingBudget {
  private windowStart = performance.now();
  private spent = 0;
  private callStart = 0;

  private lines = 0;

  private readonly mayRecord = (): boolean => {
    const now = performance.now();
    if (now - this.windowStart >= RECORDING_WINDOW_MS) {
      this.windowStart = now;
      this.spent = 0;
      this.callStart = now;
      this.lines = 0;
    }
    this.lines++;
    // A few large lines may take longer than the share: only a flood (many lines in one
    // window) is shed, so ordinary traffic with a big message is recorded whole.
    return (
      this.lines <= RECORDING_FLOOD_LINES ||
      this.spent + (now - this.callStart) < RECORDING_SHARE_MS
    );
  };

  /** Records `chunk` on `tap` as far as the budget allows (shed lines go to `recorder`). */
  tap(tap: LineTap, recorder: TraceRecorder, chunk: Uint8Array): void {
    this.callStart = performance.now();
    tap.push(chunk, this.mayRecord);
    this.spent += performance.now() - this.callStart;
    const dropped = tap.takeDropped();
    if (dropped > 0) recorder.shed(dropped);
  }
}

/** Resolves once everything written to `stream` was handed to the OS (bounded). */
async function flushed(stream: Writable, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (stream.writableLength > 0 && !stream.destroyed && Date.now() < deadline) await sleep(10);
}

/** See the module comment. */
export class ProxySession {
  private graceTimer: ReturnType<typeof setTimeout> | undefined;
  private signalsSeen = 0;

  constructor(
    private readonly agent: TracedAgent,
    private readonly recorder: TraceRecorder,
    private readonly settings: ProxySessionSettings,
  ) {}

  /** Runs until the agent has exited and everything is flushed; resolves with its exit. */
  async run(): Promise<ExitStatus> {
    const { agent, recorder, settings } = this;
    const { child } = agent;
    agent.onSignal = (signal) => recorder.event("terminate", signal);

    const fromClient = new LineTap(settings.maxLineBytes, (l) => recorder.line("client→agent", l));
    const fromAgent = new LineTap(settings.maxLineBytes, (l) => recorder.line("agent→client", l));
    const fromStderr = new LineTap(settings.maxLineBytes, (l) => recorder.stderr(l));
    const budget = new RecordingBudget();
    const pumps: Pump[] = [
      pump(settings.stdin, child.stdin, {
        tap: (chunk) => budget.tap(fromClient, recorder, chunk),
        end: true,
        onEnd: () => {
          fromClient.end();
          recorder.event("stdin-end");
          this.startGrace();
        },
      }),
      pump(child.stdout, settings.stdout, {
        tap: (chunk) => budget.tap(fromAgent, recorder, chunk),
        onEnd: () => fromAgent.end(),
      }),
      pump(child.stderr, settings.stderr, {
        tap: settings.recordStderr
          ? (chunk) => budget.tap(fromStderr, recorder, chunk)
          : () => undefined,
        onEnd: () => fromStderr.end(),
      }),
    ];
    const [, output, errors] = pumps;
    const onSignal = (signal: NodeJS.Signals): void => this.onSignal(signal);
    if (settings.handleSignals) for (const name of FORWARDED_SIGNALS) process.on(name, onSignal);
    try {
      const exit = await agent.exited;
      clearTimeout(this.graceTimer);
      const outputsDone = Promise.all([output?.done, errors?.done]);
      await settlesWithin(outputsDone, OUTPUT_WAIT_MS);
      // Whatever the agent left in its group (helpers, the real agent behind a wrapper)
      // goes too; that also ends stdout and stderr when a leftover still held them.
      if (agent.running) await agent.terminate(settings.killGraceMs);
      await settlesWithin(outputsDone, 500);
      agent.release();
      for (const p of pumps) p.stop();
      // Partial last lines (no newline before the end) are recorded as they are.
      for (const tap of [fromClient, fromAgent, fromStderr]) {
        tap.end();
        recorder.shed(tap.takeDropped());
      }
      return exit;
    } finally {
      if (settings.handleSignals) {
        for (const name of FORWARDED_SIGNALS) process.removeListener(name, onSignal);
      }
    }
  }

  /** Waits (bounded) until the proxy's own stdout and stderr are flushed. */
  async flushOutput(): Promise<void> {
    await Promise.all([
      flushed(this.settings.stdout, FLUSH_WAIT_MS),
      flushed(this.settings.stderr, FLUSH_WAIT_MS),
    ]);
  }

  private startGrace(): void {
    if (this.agent.exitStatus !== undefined || this.graceTimer !== undefined) return;
    this.graceTimer = setTimeout(() => {
      if (this.agent.exitStatus !== undefined) return;
      this.recorder.event("grace-expired");
      void this.agent.terminate(this.settings.killGraceMs);
    }, this.settings.stdinGraceMs);
  }

  private onSignal(signal: NodeJS.Signals): void {
    this.signalsSeen++;
    this.recorder.event("signal", signal);
    void this.agent.terminate(this.settings.killGraceMs, signal, this.signalsSeen > 1);
  }
}
