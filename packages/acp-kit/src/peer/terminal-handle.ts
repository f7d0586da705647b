/**
 * {@link TerminalHandle}: an agent's handle on a terminal it created on the client.
 *
 * @module
 */
import type { SendRequestOptions } from "../jsonrpc/connection.js";
import type * as schema from "../schema/types.gen.js";

/** The calls a terminal handle makes; implemented by {@link AgentSideConnection}. */
export interface TerminalCalls {
  /** Sends a request to the client. */
  request<T>(method: string, params: unknown, options?: SendRequestOptions): Promise<T>;
}

/**
 * A terminal created with `terminal/create`. Release it when done (or use
 * `await using terminal = await connection.createTerminal(...)`), also after `kill()`.
 */
export class TerminalHandle {
  /** The terminal's id, for embedding it in a tool call (`{ type: "terminal", terminalId }`). */
  id: string;
  private released = false;

  /**
   * Made by {@link AgentSideConnection.createTerminal}; not meant to be called directly.
   * @param id - The terminal id the client returned.
   * @param sessionId - The session the terminal belongs to.
   * @param connection - Where the terminal calls go.
   */
  constructor(
    id: string,
    private readonly sessionId: string,
    private readonly connection: TerminalCalls,
  ) {
    this.id = id;
  }

  /** `terminal/output`: the output so far, whether it was truncated, and the exit status once exited. */
  currentOutput(options?: SendRequestOptions): Promise<schema.TerminalOutputResponse> {
    return this.connection.request("terminal/output", this.params(), options);
  }

  /** `terminal/wait_for_exit`: resolves when the command has exited. */
  waitForExit(options?: SendRequestOptions): Promise<schema.WaitForTerminalExitResponse> {
    return this.connection.request("terminal/wait_for_exit", this.params(), options);
  }

  /** `terminal/kill`: stops the command; the terminal stays valid until released. */
  kill(options?: SendRequestOptions): Promise<schema.KillTerminalResponse> {
    return this.connection.request("terminal/kill", this.params(), options);
  }

  /**
   * `terminal/release`: kills the command if it still runs and frees the terminal. Later
   * calls do nothing.
   */
  async release(options?: SendRequestOptions): Promise<schema.ReleaseTerminalResponse | void> {
    if (this.released) return;
    this.released = true;
    return this.connection.request<schema.ReleaseTerminalResponse>(
      "terminal/release",
      this.params(),
      options,
    );
  }

  /** Releases the terminal (for `await using`). */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.release();
  }

  private params(): { sessionId: string; terminalId: string } {
    return { sessionId: this.sessionId, terminalId: this.id };
  }
}
