/**
 * The order in which inbound messages reach user code.
 *
 * - Messages are delivered in arrival order.
 * - A notification handler that returns a promise holds up the messages after it until
 *   the promise settles (so that async handlers see updates one at a time, and a response
 *   is not delivered before the notifications that came ahead of it were handled) —
 *   except responses to requests sent while that handler ran: the handler may be waiting
 *   for one of them, and holding it back would deadlock. `$/cancel_request` is never held
 *   up either. Routes marked `concurrent` do not hold anything up.
 * - A request or notification read together with a response that came before it (in the
 *   same chunk, so in the same synchronous delivery) waits for a macrotask, so that the
 *   code awaiting the response runs before that message's handler: as it would had they
 *   come in two reads. (Further responses need not wait: settling one runs no user code.)
 * - The transport keeps reading while a handler holds up delivery, so the end of the
 *   input is seen at once; what has arrived by then is delivered (without waiting for
 *   handlers any more) before the connection closes. A large backlog pushes back on the
 *   transport instead of growing without bound.
 * - While our own output is backed up (the transport asked senders to wait), requests and
 *   notifications wait in the backlog: handling them adds output. Reading goes on, and
 *   responses and `$/cancel_request` with nothing waiting before them are still delivered,
 *   so two peers that both write more than the other reads never wait on each other.
 * - Delivery yields to the event loop (a macrotask) after about {@link SLICE_MS} of work,
 *   so that a long backlog cannot starve timers, I/O and signals. Order is unchanged: what
 *   arrives meanwhile waits behind the backlog.
 *
 * @module
 */
import { CANCEL_REQUEST_METHOD, RESPONSE_DELIVERED, type DispatchOutcome } from "./dispatch.js";
import type { Logger } from "../base/logger.js";
import { isPlainObject } from "../base/messages.js";

/** Messages waiting beyond which the transport is asked to stop reading for a while. */
const MAX_BACKLOG = 10_000;

/** Milliseconds of delivery work after which the inbox yields to the event loop. */
const SLICE_MS = 8;

/** The clock is read once per this many deliveries (a power of two, minus one). */
const CLOCK_MASK = 7;

const now: () => number =
  typeof (globalThis as { performance?: { now?: unknown } }).performance?.now === "function"
    ? () => globalThis.performance.now()
    : () => Date.now();

/** How long a handler may hold up delivery before a warning is logged. */
const STALL_WARNING_MS = 10_000;

/** What the inbox needs from its connection. */
export interface InboxHost {
  /** Delivers one message to user code. */
  dispatch(message: unknown): DispatchOutcome;
  /** The id the next outbound request will get (ids grow by one per request). */
  nextRequestId(): number;
  /** True once the connection is closed: nothing is delivered any more. */
  isClosed(): boolean;
  /** True while our own output is backed up: requests and notifications then wait. */
  isOutputBlocked(): boolean;
  readonly logger: Logger;
}

/** A notification handler holding up delivery. */
interface Hold {
  readonly method: string;
  /** The first outbound request id sent while the handler ran. */
  readonly firstRequestId: number;
  readonly since: number;
  warned: boolean;
}

type Scheduler = (task: () => void) => void;

/** A macrotask: `setImmediate` where there is one (Node, Bun), else a zero timeout. */
const nextTask: Scheduler = (() => {
  const immediate = (globalThis as { setImmediate?: (task: () => void) => unknown }).setImmediate;
  if (typeof immediate === "function") return (task) => void immediate(task);
  return (task) => void setTimeout(task, 0);
})();

/**
 * True for what handling adds output: requests, notifications (their handlers may send)
 * and invalid messages (answered); false for responses and `$/cancel_request`.
 */
function addsOutput(message: unknown): boolean {
  if (!isPlainObject(message)) return true;
  const method = message.method;
  if (method === undefined) return !("id" in message);
  return method !== CANCEL_REQUEST_METHOD;
}

/** An empty array whose elements are already of the kind that holds any value. */
function emptyObjectArray(): unknown[] {
  const array: unknown[] = [undefined];
  array.length = 0;
  return array;
}

/** See the module comment. */
export class Inbox {
  /**
   * Messages waiting, from `head` on. One array for the inbox's life, emptied in place:
   * a fresh `[]` holds small integers until the first message, and code optimized for the
   * array of objects it then becomes would be thrown away on every new one (on every new
   * connection, and every time the backlog emptied). It starts as an array of objects.
   */
  private readonly backlog: unknown[] = emptyObjectArray();
  private head = 0;
  private hold: Hold | undefined;
  /** Set after a response, until the code awaiting it has run (see the module comment). */
  private yielding = false;
  /** A macrotask is scheduled to end the yield. */
  private waitingForTask = false;
  /** Set once the input ended: deliver what is left without waiting for handlers. */
  private finishing: (() => void) | undefined;
  private resumeReading: (() => void) | undefined;
  /** A macrotask is scheduled to go on after a time slice ran out. */
  private sliced = false;
  /**
   * When the current slice of delivery work began (negative: no slice running; a double
   * from the start, so that the field keeps one representation).
   */
  private sliceStart = -0.5;
  private clockTicks = 0;

  /** @param host - The connection. */
  constructor(private readonly host: InboxHost) {
    // Fields that change only at the end (or never, without async notification handlers)
    // but are read for every message: written once more so that V8 treats them as mutable
    // from the start (see `Lifecycle`'s constructor).
    this.hold = undefined;
    this.finishing = undefined;
  }

  /**
   * Takes one message from the transport. Returns a promise when the transport should
   * stop reading until it settles (the backlog is full).
   */
  push(message: unknown): void | Promise<void> {
    if (this.host.isClosed()) return;
    if (this.idle) {
      if (!this.blockedBy(message) && !this.overSlice()) {
        this.deliver(message);
        return;
      }
    } else if (this.passesHold(message) || this.passesYield(message)) {
      this.deliver(message);
      return;
    }
    this.backlog.push(message);
    this.noteStall();
    // Reading pauses while the backlog is full, and until the next macrotask once the
    // time slice ran out (parsing is work too).
    if (this.backlog.length - this.head >= MAX_BACKLOG || this.overSlice()) {
      return new Promise<void>((resolve) => (this.resumeReading = resolve));
    }
  }

  /**
   * The input ended (or failed): delivers what is waiting, no longer holding it up for
   * handlers, then calls `done` (once; at once when nothing waits).
   */
  finish(done: () => void): void {
    if (this.finishing !== undefined) return;
    this.finishing = done;
    this.hold = undefined;
    this.drain();
  }

  /** The connection closed: drops what is waiting. */
  clear(): void {
    this.backlog.length = 0;
    this.head = 0;
    this.hold = undefined;
    this.wakeReader();
  }

  /**
   * Our output drained (or the backed-up state ended otherwise): delivers what waited.
   */
  resume(): void {
    if (this.head < this.backlog.length && !this.sliced) this.drain();
  }

  private get idle(): boolean {
    return (
      this.hold === undefined && !this.yielding && !this.sliced && this.head === this.backlog.length
    );
  }

  /** True when `message` adds output while our output is backed up: it waits. */
  private blockedBy(message: unknown): boolean {
    return this.host.isOutputBlocked() && this.finishing === undefined && addsOutput(message);
  }

  /**
   * True once the current time slice ran out (a macrotask that ends it is then pending).
   * The clock is read only every few calls.
   */
  private overSlice(): boolean {
    if (this.sliced) return true;
    if ((++this.clockTicks & CLOCK_MASK) !== 0) return false;
    const t = now();
    if (this.sliceStart < 0) {
      this.sliceStart = t;
      nextTask(this.endSlice);
      return false;
    }
    if (t - this.sliceStart < SLICE_MS) return false;
    this.sliced = true;
    return true;
  }

  /** A macrotask ran: the next delivery starts a new slice. */
  private readonly endSlice = (): void => {
    this.sliceStart = -0.5;
    if (!this.sliced) return;
    this.sliced = false;
    this.drain();
    this.wakeReaderIfRoom();
  };

  /** Responses to requests sent during the hold, and `$/cancel_request`, go past it. */
  private passesHold(message: unknown): boolean {
    const hold = this.hold;
    if (hold === undefined || !isPlainObject(message)) return false;
    if (message.method === undefined) {
      return typeof message.id === "number" && message.id >= hold.firstRequestId;
    }
    return message.method === CANCEL_REQUEST_METHOD && !this.waitingRequest(message.params);
  }

  /** True when the request a `$/cancel_request` names is still in the backlog. */
  private waitingRequest(params: unknown): boolean {
    if (!isPlainObject(params)) return false;
    const id = params.requestId;
    for (let i = this.head; i < this.backlog.length; i++) {
      const m = this.backlog[i];
      if (isPlainObject(m) && m.id === id && typeof m.method === "string") return true;
    }
    return false;
  }

  /**
   * During a yield, another response with nothing waiting before it is delivered at once:
   * settling it runs no user code before the awaiting code of the first one (many answers
   * in one chunk are common when many requests are in flight).
   */
  private passesYield(message: unknown): boolean {
    return (
      this.yielding &&
      this.hold === undefined &&
      !this.sliced &&
      this.head === this.backlog.length &&
      isPlainObject(message) &&
      message.method === undefined
    );
  }

  private deliver(message: unknown): void {
    // Taken first: a handler may send a request before it first awaits.
    const firstRequestId = this.host.nextRequestId();
    const outcome = this.host.dispatch(message);
    if (outcome === undefined) return;
    if (outcome === RESPONSE_DELIVERED) {
      this.yielding = true;
      return;
    }
    if (this.finishing !== undefined) return;
    const hold: Hold = {
      method: isPlainObject(message) ? String(message.method) : "",
      firstRequestId,
      since: Date.now(),
      warned: false,
    };
    this.hold = hold;
    const release = (): void => {
      if (this.hold !== hold) return;
      this.hold = undefined;
      this.drain();
    };
    outcome.then(release, release);
  }

  /**
   * The transport handed over everything it read together. If a response was among it,
   * what came after the response waits for a macrotask (see the module comment); if
   * nothing did, delivery goes on at once.
   */
  endOfChunk(): void {
    if (!this.yielding || this.waitingForTask) return;
    if (this.head === this.backlog.length) {
      this.yielding = false;
      return;
    }
    this.waitingForTask = true;
    nextTask(this.afterYield);
  }

  private readonly afterYield = (): void => {
    this.waitingForTask = false;
    this.yielding = false;
    this.drain();
  };

  private drain(): void {
    while (this.head < this.backlog.length) {
      if (this.host.isClosed()) {
        this.clear();
        return;
      }
      if (this.yielding || this.hold !== undefined) break;
      const message = this.backlog[this.head];
      if (this.blockedBy(message) || this.overSlice()) break;
      this.backlog[this.head++] = undefined;
      this.deliver(message);
    }
    // What a drain delivers is delivered together, like a chunk.
    this.endOfChunk();
    if (this.head === this.backlog.length) {
      this.backlog.length = 0;
      this.head = 0;
    }
    this.wakeReaderIfRoom();
    if (
      this.finishing !== undefined &&
      !this.yielding &&
      !this.sliced &&
      this.head === this.backlog.length
    ) {
      const done = this.finishing;
      this.finishing = () => undefined;
      done();
    }
  }

  /** Lets the transport read on when the backlog has room and no slice ran out. */
  private wakeReaderIfRoom(): void {
    if (!this.sliced && this.backlog.length - this.head < MAX_BACKLOG / 2) this.wakeReader();
  }

  private wakeReader(): void {
    const resume = this.resumeReading;
    this.resumeReading = undefined;
    resume?.();
  }

  private noteStall(): void {
    const hold = this.hold;
    if (hold === undefined || hold.warned || Date.now() - hold.since < STALL_WARNING_MS) return;
    hold.warned = true;
    this.host.logger.warn?.(
      "A notification handler has held up later messages for a long time; they wait until it settles",
      { method: hold.method, waitingMessages: this.backlog.length - this.head },
    );
  }
}
