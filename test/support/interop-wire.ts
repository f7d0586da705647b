/**
 * Byte pipes for interop tests: two identity `TransformStream<Uint8Array>`s, one per
 * direction, each with a tap that records the bytes crossing it. Each side frames its
 * end with its own `ndJsonStream`, so what the tests check is what really crossed as
 * newline-delimited JSON.
 */

/** What crossed one direction of the wire. */
export class WireTap {
  /** Every chunk written, as written. */
  readonly chunks: unknown[] = [];
  private text = "";
  private readonly decoder = new TextDecoder();

  /** Records one chunk (called by the pipe). */
  record(chunk: unknown): void {
    this.chunks.push(chunk);
    if (chunk instanceof Uint8Array) this.text += this.decoder.decode(chunk, { stream: true });
  }

  /** True when every chunk was a `Uint8Array` (real bytes, not objects). */
  get allBytes(): boolean {
    return this.chunks.every((chunk) => chunk instanceof Uint8Array);
  }

  /** The raw text so far. */
  get raw(): string {
    return this.text;
  }

  /** The complete lines so far, parsed. */
  get messages(): Record<string, unknown>[] {
    const lines = this.text.split("\n");
    lines.pop(); // incomplete (or empty) tail
    return lines
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  /** The messages with this method. */
  withMethod(method: string): Record<string, unknown>[] {
    return this.messages.filter((message) => message.method === method);
  }

  /** The response with this id, if it crossed. */
  responseTo(id: unknown): Record<string, unknown> | undefined {
    return this.messages.find((message) => !("method" in message) && message.id === id);
  }
}

/** The two directions of an interop connection. */
export interface InteropWire {
  /** Bytes the client writes and the agent reads. */
  readonly clientToAgent: TransformStream<Uint8Array, Uint8Array>;
  /** Bytes the agent writes and the client reads. */
  readonly agentToClient: TransformStream<Uint8Array, Uint8Array>;
  readonly clientToAgentTap: WireTap;
  readonly agentToClientTap: WireTap;
}

function tappedPipe(tap: WireTap): TransformStream<Uint8Array, Uint8Array> {
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      tap.record(chunk);
      controller.enqueue(chunk);
    },
  });
}

/** A fresh pair of tapped identity byte pipes. */
export function interopWire(): InteropWire {
  const clientToAgentTap = new WireTap();
  const agentToClientTap = new WireTap();
  return {
    clientToAgent: tappedPipe(clientToAgentTap),
    agentToClient: tappedPipe(agentToClientTap),
    clientToAgentTap,
    agentToClientTap,
  };
}

/** Resolves once `tap` carries more `$/cancel_request` notifications than it does now. */
export function nextCancelRequest(tap: WireTap, timeoutMs = 5_000): Promise<void> {
  const base = tap.withMethod("$/cancel_request").length;
  return until(() => tap.withMethod("$/cancel_request").length > base, timeoutMs).then(
    () => undefined,
  );
}

/** A promise with its resolve function exposed. */
export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** How waiting for an abort ended. */
export interface AbortOutcome {
  /** True when the signal aborted (false: the wait timed out). */
  readonly aborted: boolean;
  /** The signal's reason. */
  readonly reason: unknown;
}

/** Resolves when `signal` aborts, or after `timeoutMs` (so a broken test cannot hang). */
export function whenAborted(signal: AbortSignal, timeoutMs = 5_000): Promise<AbortOutcome> {
  const reason: unknown = signal.reason;
  if (signal.aborted) return Promise.resolve({ aborted: true, reason });
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      const abortReason: unknown = signal.reason;
      resolve({ aborted: true, reason: abortReason });
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve({ aborted: false, reason: undefined });
    }, timeoutMs);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Polls `condition` until it holds, or gives up after `timeoutMs`. */
export async function until(condition: () => boolean, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 2));
  }
  return true;
}

/** The error `promise` rejects with; fails when it resolves. */
export async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the promise to reject");
}

/** What the wire shows about one prompt turn of `sessionId`. */
export interface WireTurn {
  /** The `session/prompt` request id. */
  readonly id: unknown;
  /** The session's `session/update` params that crossed before the response. */
  readonly updatesBefore: Record<string, unknown>[];
  /** The session's `session/update` params that crossed after the response. */
  readonly updatesAfter: Record<string, unknown>[];
  /** The response message. */
  readonly response: Record<string, unknown> | undefined;
}

/** Reads the last prompt turn of `sessionId` off the wire. */
export function wireTurn(wire: InteropWire, sessionId: string): WireTurn {
  const prompts = wire.clientToAgentTap
    .withMethod("session/prompt")
    .filter((m) => (m.params as { sessionId?: unknown } | undefined)?.sessionId === sessionId);
  const id = prompts.at(-1)?.id;
  const messages = wire.agentToClientTap.messages;
  const at = messages.findIndex((m) => !("method" in m) && m.id === id);
  const isUpdate = (m: Record<string, unknown>): boolean =>
    m.method === "session/update" && (m.params as { sessionId?: unknown }).sessionId === sessionId;
  const cut = at === -1 ? messages.length : at;
  return {
    id,
    updatesBefore: messages
      .slice(0, cut)
      .filter(isUpdate)
      .map((m) => m.params as Record<string, unknown>),
    updatesAfter: messages
      .slice(cut + 1)
      .filter(isUpdate)
      .map((m) => m.params as Record<string, unknown>),
    response: at === -1 ? undefined : messages[at],
  };
}
