/**
 * What the CLI does on `SIGINT`, `SIGTERM` and `SIGHUP` while it talks to an agent: end
 * the agent's process group and its terminals, then exit. A signal nobody handles would
 * kill the CLI before that cleanup (the exit hook of `spawnAgent` runs on a normal exit
 * only), leaving the agent and the commands it started running.
 *
 * @module
 */
import { constants } from "node:os";
import type { AgentController } from "./controller.js";
import { ExitCodes } from "./exit-codes.js";

/** Options of {@link endOnSignals}. */
export interface SignalOptions {
  /**
   * The first `SIGINT` of a running turn cancels the turn (`session/cancel`) instead of
   * ending the program; a second one ends it. For the commands without a live view,
   * where Ctrl-C arrives as a signal.
   */
  readonly cancelTurns?: boolean;
  /**
   * `SIGINT` is ignored while this returns true: the terminal belongs to another program
   * (an agent's login command), which gets the Ctrl-C itself.
   */
  readonly ignoreInterrupt?: () => boolean;
  /**
   * Called at once for each signal acted on: `cancel` when a `SIGINT` cancels the turn,
   * `end` when the program ends (to say so before the agent is closed).
   */
  readonly onSignal?: (signal: NodeJS.Signals, action: "cancel" | "end") => void;
}

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** The exit code for an end by `signal`: cancelled for `SIGINT`, else 128 + its number. */
export function signalExitCode(signal: NodeJS.Signals): number {
  if (signal === "SIGINT") return ExitCodes.CANCELLED;
  return 128 + constants.signals[signal];
}

/** What {@link endOnSignals} returns. */
export interface SignalHandling {
  /** The signal the program is ending for, once one came. */
  readonly received: NodeJS.Signals | undefined;
  /** Removes the handlers. */
  dispose(): void;
}

/** Handles the termination signals for `controller` (see the module comment). */
export function endOnSignals(
  controller: AgentController,
  options: SignalOptions = {},
): SignalHandling {
  // The turn a Ctrl-C has cancelled: the next Ctrl-C in it ends the program.
  let cancelling = false;
  const offChange = controller.onChange(() => {
    if (controller.phase !== "prompting") cancelling = false;
  });
  let received: NodeJS.Signals | undefined;
  const handler = (signal: NodeJS.Signals): void => {
    if (signal === "SIGINT") {
      if (options.ignoreInterrupt?.() === true) return;
      if (options.cancelTurns === true && !cancelling && controller.phase === "prompting") {
        cancelling = true;
        options.onSignal?.(signal, "cancel");
        void controller.cancel().catch(() => undefined);
        return;
      }
    }
    if (received !== undefined) return;
    received = signal;
    options.onSignal?.(signal, "end");
    void controller
      .close()
      .catch(() => undefined)
      .finally(() => process.exit(signalExitCode(signal)));
  };
  for (const signal of SIGNALS) process.on(signal, handler);
  return {
    get received() {
      return received;
    },
    dispose() {
      offChange();
      for (const signal of SIGNALS) process.off(signal, handler);
    },
  };
}
