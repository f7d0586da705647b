/**
 * Fake terminals for a {@link TestClient}: nothing runs; each command's output and exit
 * are scripted, so agent tests are deterministic and safe.
 *
 * @module
 */
import { RequestError } from "../../jsonrpc/errors.js";
import type {
  CreateTerminalRequest,
  CreateTerminalResponse,
  TerminalExitStatus,
  TerminalOutputResponse,
  WaitForTerminalExitResponse,
} from "../../schema/types.gen.js";

/** What a fake command prints and how it ends. */
export interface FakeTerminalScript {
  /** Everything it prints (default `""`). */
  readonly output?: string;
  /** Its exit code (default `0`). */
  readonly exitCode?: number;
  /**
   * True for a command that never exits by itself: `terminal/wait_for_exit` waits until
   * `terminal/kill` or `terminal/release`, which end it with `SIGTERM`.
   */
  readonly hang?: boolean;
}

/**
 * Scripts by command line: the key is `command` followed by its `args`, joined by
 * spaces (e.g. `"npm test"`), or just `command`, or `"*"` for any other command. A
 * function may decide instead. A command with no script exits 127 with
 * `"<command>: command not found"`.
 */
export type TerminalScripts =
  | Readonly<Record<string, FakeTerminalScript>>
  | ((request: CreateTerminalRequest) => FakeTerminalScript | undefined);

/** A fake terminal, as tests see it. */
export interface FakeTerminal {
  /** Its id (`term-1`, `term-2`, ... in creation order). */
  readonly terminalId: string;
  /** The request that created it. */
  readonly request: CreateTerminalRequest;
  /** How it ended, once it has. */
  readonly exitStatus: TerminalExitStatus | undefined;
  /** True once `terminal/kill` was called. */
  readonly killed: boolean;
  /** True once `terminal/release` was called. */
  readonly released: boolean;
}

interface Running {
  readonly terminalId: string;
  readonly request: CreateTerminalRequest;
  readonly output: string;
  exitStatus: TerminalExitStatus | undefined;
  killed: boolean;
  released: boolean;
  readonly exited: Promise<TerminalExitStatus>;
  end: (status: TerminalExitStatus) => void;
}

/** Keeps the last `limit` bytes of `text`, cut at a character boundary. */
function tail(text: string, limit: number | null | undefined): { text: string; cut: boolean } {
  if (limit === undefined || limit === null) return { text, cut: false };
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= limit) return { text, cut: false };
  let start = bytes.length - limit;
  // Skip UTF-8 continuation bytes (10xxxxxx) so the kept text starts on a character.
  while (start < bytes.length && ((bytes[start] ?? 0) & 0xc0) === 0x80) start++;
  return { text: new TextDecoder().decode(bytes.subarray(start)), cut: true };
}

/** The terminals of a test client. */
export class FakeTerminals {
  private readonly running = new Map<string, Running>();

  /**
   * Creates the terminals (none yet).
   *
   * @param scripts - What each command does.
   */
  constructor(private readonly scripts: TerminalScripts = {}) {}

  /** Every terminal created so far, in order. */
  list(): FakeTerminal[] {
    return [...this.running.values()].map(
      ({ terminalId, request, exitStatus, killed, released }) => ({
        terminalId,
        request,
        exitStatus,
        killed,
        released,
      }),
    );
  }

  /** `terminal/create`. */
  create(request: CreateTerminalRequest): CreateTerminalResponse {
    const script = this.scriptFor(request);
    const terminalId = `term-${this.running.size + 1}`;
    let end!: (status: TerminalExitStatus) => void;
    const exited = new Promise<TerminalExitStatus>((resolve) => (end = resolve));
    const entry: Running = {
      terminalId,
      request,
      output: script.output ?? "",
      exitStatus: undefined,
      killed: false,
      released: false,
      exited,
      end: (status) => {
        if (entry.exitStatus !== undefined) return;
        entry.exitStatus = status;
        end(status);
      },
    };
    this.running.set(terminalId, entry);
    if (script.hang !== true) entry.end({ exitCode: script.exitCode ?? 0, signal: null });
    return { terminalId };
  }

  /** `terminal/output`. */
  output(terminalId: string): TerminalOutputResponse {
    const entry = this.get(terminalId);
    const { text, cut } = tail(entry.output, entry.request.outputByteLimit);
    return {
      output: text,
      truncated: cut,
      ...(entry.exitStatus === undefined ? {} : { exitStatus: entry.exitStatus }),
    };
  }

  /** `terminal/wait_for_exit`. */
  async waitForExit(terminalId: string): Promise<WaitForTerminalExitResponse> {
    return { ...(await this.get(terminalId).exited) };
  }

  /** `terminal/kill`. */
  kill(terminalId: string): void {
    const entry = this.get(terminalId);
    entry.killed = true;
    entry.end({ exitCode: null, signal: "SIGTERM" });
  }

  /** `terminal/release`. */
  release(terminalId: string): void {
    const entry = this.get(terminalId);
    entry.end({ exitCode: null, signal: "SIGTERM" });
    entry.released = true;
  }

  private get(terminalId: string): Running {
    const entry = this.running.get(terminalId);
    if (entry === undefined || entry.released) {
      throw new RequestError(-32002, `Unknown terminal ${terminalId}`, { terminalId });
    }
    return entry;
  }

  private scriptFor(request: CreateTerminalRequest): FakeTerminalScript {
    const scripts = this.scripts;
    const line = [request.command, ...(request.args ?? [])].join(" ");
    const found =
      typeof scripts === "function"
        ? scripts(request)
        : (scripts[line] ?? scripts[request.command] ?? scripts["*"]);
    return found ?? { output: `${request.command}: command not found\n`, exitCode: 127 };
  }
}
