/**
 * The interactive view of `acp-kit run`: the transcript (printed once), the live turn
 * (streaming Markdown, tool call rows updated in place, the plan), permission and
 * login chooser, the status line and the input line with slash-command
 * completion.
 *
 * @module
 */
import {
  Box,
  measureElement,
  Static,
  Text,
  useApp,
  useStdin,
  useStdout,
  type DOMElement,
} from "ink";
import Spinner from "ink-spinner";
import {
  useCallback,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
  useSyncExternalStore,
  type ReactElement,
  type ReactNode,
} from "react";
import type { PlanEntry } from "acp-kit";
import {
  selectOptionValues,
  threadLength,
  threadSlice,
  type SessionState,
  type ThreadItem,
} from "acp-kit";
import type { AgentController, AgentEnd } from "../controller.js";
import { failureText } from "../exit-codes.js";
import { cycleMode, runClientCommand } from "./slash-commands.js";
import { Clamped } from "./clamped.js";
import { CommandPicker, immediatePicker } from "./command-picker.js";
import { LoginBox, loginMethods } from "./login-box.js";
import { completionValues, type PickerCommand } from "./pickers.js";
import { InputLine } from "./input-line.js";
import {
  Composer,
  DISABLE_BRACKETED_PASTE,
  ENABLE_BRACKETED_PASTE,
  HIDE_CURSOR,
} from "./composer.js";
import { listFiles, promptBlocks } from "./mentions.js";
import { fileHistory } from "./prompt-history.js";
import { runShell, shellText, type RunningShell } from "./shell.js";
import { editInEditor, type EditorOutcome } from "./external-editor.js";
import { routeInput, runsAlone } from "./input-route.js";
import { KeyRouter, useKeys } from "./keys.js";
import { Markdown } from "./markdown.js";
import { useStoreByFrame } from "./frame-rate.js";
import { FirstQuestion } from "./question-view.js";
import { allCommands } from "./slash.js";
import { agentText, blocksText, finishedPrefix, liveTail, tokens, typedText } from "./text.js";
import { ToolCallView } from "./tool-call-view.js";
import { useToolOutputKey } from "./tool-output-key.js";
import { OpenSessionPicker, type SessionPickerSlot } from "./session-picker.js";
import type { TranscriptEntry, UiModel } from "./ui-model.js";
import { answerText, type PermissionAnswer, type PermissionAnswers } from "./permission-answers.js";

/** Props of {@link App}. */
export interface AppProps {
  readonly controller: AgentController;
  readonly ui: UiModel;
  /** Hands the terminal to an interactive command (terminal authentication). */
  readonly suspend: <T>(run: () => Promise<T>) => Promise<T>;
  /** Called when the user quits. */
  readonly onQuit: () => void;
  /** A prompt to send as soon as the session is ready (the demo's first turn). */
  readonly initialPrompt?: string;
  /** Where `run --resume` opens its picker of sessions (in the directory `cwd`). */
  readonly sessionPicker?: { readonly slot: SessionPickerSlot; readonly cwd: string };
  /** How permission requests were answered: a refused or cancelled call's row says so. */
  readonly answers?: PermissionAnswers;
  /**
   * The session's directory: `!command` runs there, `@file` completes from it, and the
   * prompt history is kept for it (default: the current directory).
   */
  readonly cwd?: string;
}

function ItemView({
  item,
  ui,
  asking,
  maxRows,
  answer,
}: {
  item: ThreadItem;
  ui: UiModel;
  asking?: string | undefined;
  /** For a tool call: how its permission request was answered. */
  answer?: PermissionAnswer | undefined;
  /** For the item still streaming: show only its end, about this many rows. */
  maxRows?: number | undefined;
}): ReactNode {
  const { stdout } = useStdout();
  const columns = stdout.columns || 80;
  switch (item.type) {
    case "message": {
      // A replayed user message shows as it was typed (see `typedText`), an agent's
      // without the markup of a local command's output (see `agentText`).
      const full =
        item.role === "user"
          ? typedText(blocksText(item.content))
          : agentText(blocksText(item.content));
      if (item.role === "user" && full === "") return null;
      const shown =
        maxRows === undefined ? { text: full, hiddenLines: 0 } : liveTail(full, maxRows, columns);
      const text = shown.text;
      const earlier =
        shown.hiddenLines > 0 || full !== text ? (
          <Text dimColor>… (the start is above; the whole reply is printed when complete)</Text>
        ) : null;
      if (item.role === "user") {
        return (
          <Box marginTop={1}>
            <Text color="cyan" bold>
              {"› "}
              {text}
            </Text>
          </Box>
        );
      }
      if (item.role === "thought") {
        if (!ui.showThoughts) {
          const first = text.trim().split("\n")[0] ?? "";
          // One row: the mark, the start of the thought, the key.
          const room = Math.max(10, columns - 14);
          return (
            <Text dimColor italic>
              ✻ {first.length > room ? `${first.slice(0, room)}…` : first} (Ctrl-T)
            </Text>
          );
        }
        return (
          <Box flexDirection="column">
            {earlier}
            <Text dimColor italic>
              ✻ {text.trim()}
            </Text>
          </Box>
        );
      }
      return (
        <Box flexDirection="column">
          {earlier}
          <Markdown text={text} />
        </Box>
      );
    }
    case "tool_call":
      // While a permission question about this call is open, the question shows it.
      if (asking === item.toolCallId) return null;
      return (
        <Box flexDirection="column">
          <ToolCallView call={item} terminals={ui.terminals} expanded full={ui.showToolOutput} />
          {answerText(answer) === undefined ? null : (
            <Text dimColor>{`  ${answerText(answer)}`}</Text>
          )}
        </Box>
      );
    case "compaction":
      return <Text dimColor>⟳ context compaction: {item.status}</Text>;
    default:
      return <Text dimColor>(an item of a kind this version does not show)</Text>;
  }
}

function PlanView({ entries }: { entries: readonly PlanEntry[] }): ReactNode {
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text bold>Plan</Text>
      {entries.map((entry, i) => {
        const mark =
          entry.status === "completed" ? "☑" : entry.status === "in_progress" ? "◐" : "☐";
        const color =
          entry.status === "completed"
            ? "green"
            : entry.status === "in_progress"
              ? "yellow"
              : undefined;
        return (
          <Text key={i} color={color} strikethrough={entry.status === "completed"}>
            {mark} {entry.content}
          </Text>
        );
      })}
    </Box>
  );
}

function TranscriptView({
  entry,
  ui,
  answerOf,
}: {
  entry: TranscriptEntry;
  ui: UiModel;
  answerOf: (item: ThreadItem) => PermissionAnswer | undefined;
}): ReactNode {
  if (entry.kind === "item") {
    return <ItemView item={entry.item} ui={ui} answer={answerOf(entry.item)} />;
  }
  if (entry.kind === "plan") return <PlanView entries={entry.entries} />;
  const color =
    entry.notice.level === "error" ? "red" : entry.notice.level === "warn" ? "yellow" : "gray";
  return (
    <Box marginTop={1}>
      <Text color={color}>{entry.notice.text}</Text>
    </Box>
  );
}

/** The name of the current value of the config option of a category, if there is one. */
function optionLabel(state: SessionState | undefined, category: string): string | undefined {
  const option = state?.configOptions?.find((o) => o.category === category);
  if (option === undefined) return undefined;
  if (option.type !== "select") return String(option.currentValue);
  const current = selectOptionValues(option).find((v) => v.value === option.currentValue);
  return current?.name ?? option.currentValue;
}

/** The name of the current mode (from `modes`, the older form of the mode option). */
function modeLabel(state: SessionState | undefined): string | undefined {
  const id = state?.currentModeId;
  if (id == null) return undefined;
  return state?.availableModes?.find((m) => m.id === id)?.name ?? id;
}

function StatusLine({
  controller,
  state,
}: {
  controller: AgentController;
  state: SessionState | undefined;
}): ReactNode {
  const parts: string[] = [];
  const info = controller.info?.agentInfo;
  if (info != null) parts.push(`${info.title ?? info.name} ${info.version}`);
  const title = state?.info.title;
  if (title != null && title !== "") parts.push(title);
  const mode = optionLabel(state, "mode") ?? modeLabel(state);
  if (mode !== undefined) parts.push(`mode: ${mode}`);
  const model = optionLabel(state, "model");
  if (model !== undefined) parts.push(`model: ${model}`);
  const usage = state?.usage;
  if (usage != null) {
    const cost =
      usage.cost === null ? "" : ` · ${usage.cost.amount.toFixed(2)} ${usage.cost.currency}`;
    parts.push(`${tokens(usage.used)}/${tokens(usage.size)} tokens${cost}`);
  }
  // The ACP version in use, last: the rest of the line keeps its place.
  if (controller.protocol !== undefined) parts.push(`ACP v${controller.protocol}`);
  const busy = controller.phase === "prompting" || controller.phase === "starting";
  // One Text, so that a long line wraps as a whole instead of in two columns.
  return (
    <Text>
      {busy ? (
        <Text color="cyan">
          <Spinner type="dots" />{" "}
          {controller.phase === "starting"
            ? "Starting the agent…"
            : "Working… (Ctrl-C to cancel)"}{" "}
        </Text>
      ) : null}
      <Text dimColor>{parts.join(" · ")}</Text>
    </Text>
  );
}

/** What the exit box says first. */
function howItEnded(exit: AgentEnd | undefined): string {
  // Only a restart can fail here (a failed first start ends the program).
  if (exit?.error !== undefined) return `The restart failed: ${exit.error}`;
  const status = exit?.status;
  if (status === undefined) return "The agent stopped.";
  return status.signal !== null
    ? `The agent was killed by ${status.signal}.`
    : `The agent exited with code ${String(status.code)}.`;
}

function ExitedView({ controller }: { controller: AgentController }): ReactNode {
  const exit = controller.exit;
  const how = howItEnded(exit);
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="red" paddingX={1}>
      <Text color="red" bold>
        {how}
      </Text>
      {(exit?.stderr ?? []).slice(-10).map((line, i) => (
        <Text key={i} dimColor>
          {line}
        </Text>
      ))}
      <Text>Press r to restart it, q to quit.</Text>
    </Box>
  );
}

/** The composer of each view's model (see `LiveView`). */
const composers = new WeakMap<UiModel, Composer>();

/** The composer of this view's model, made the first time. */
function composerOf(ui: UiModel, cwd: string, bracketedPaste: boolean): Composer {
  let composer = composers.get(ui);
  if (composer === undefined) {
    composer = newComposer(cwd, bracketedPaste);
    composers.set(ui, composer);
  }
  return composer;
}

/** "N queued prompts dropped" after `separator`, or nothing for none. */
function droppedText(count: number, separator: string): string {
  if (count === 0) return "";
  return `${separator}${count} queued prompt${count === 1 ? "" : "s"} dropped`;
}

/** The files under `cwd` for `@` completion, listed again when older than a few seconds. */
function filesOf(cwd: string): () => readonly string[] {
  let listed: { at: number; files: readonly string[] } | undefined;
  return () => {
    const now = Date.now();
    if (listed === undefined || now - listed.at > 5000) listed = { at: now, files: listFiles(cwd) };
    return listed.files;
  };
}

/** A composer for the session in `cwd`: its prompt history, and its files for `@`. */
function newComposer(cwd: string, bracketedPaste: boolean): Composer {
  return new Composer({ history: fileHistory(cwd), files: filesOf(cwd), bracketedPaste });
}

/**
 * Re-renders when the terminal is resized, so that widths and the streaming reply's cut
 * follow the window. (The live area's height limit follows at once: see `Clamped`.)
 */
function useTerminalSize(stdout: NodeJS.WriteStream): string {
  const subscribe = useCallback(
    (onChange: () => void) => {
      stdout.on("resize", onChange);
      return () => {
        stdout.off("resize", onChange);
      };
    },
    [stdout],
  );
  return useSyncExternalStore(subscribe, () => `${stdout.columns}x${stdout.rows}`);
}

/**
 * The live view as `run` mounts it: the app under the key router. (The element is made
 * here so that `run` itself loads nothing of React before it has chosen React's build.)
 */
export function liveView(props: AppProps): ReactElement {
  return (
    <KeyRouter>
      <App {...props} />
    </KeyRouter>
  );
}

/** The application; see the module comment. */
export function App({
  controller,
  ui,
  suspend,
  onQuit,
  initialPrompt,
  sessionPicker,
  answers,
  cwd = process.cwd(),
}: AppProps): ReactNode {
  // Drawn once per frame however fast updates come (see frame-rate.ts).
  useStoreByFrame(controller.onChange, controller.snapshot);
  // Leaving is drawn at once: the last frame (without the live area) must come before exit.
  useStoreByFrame(ui.subscribe, ui.snapshot, () => ui.leaving);
  const app = useApp();
  const { stdout } = useStdout();
  const { stdin } = useStdin();
  useTerminalSize(stdout);
  useToolOutputKey(ui, controller.sessions);
  const columns = stdout.columns || 80;
  // The text being written, the queue, and what Ctrl-C and Esc mean (see composer.ts): it
  // changes at once, as keys come faster than renders; it is drawn as it is.
  // One per UiModel, not per mount: a view mounted again after a terminal login goes on
  // with the text being written and the prompts queued (a new one dropped them).
  const composer = composerOf(ui, cwd, stdout.isTTY);
  useSyncExternalStore(composer.subscribe, composer.snapshot);
  // What the first Ctrl-C did and what a second would do, above the status line while
  // the count stands (it is about now, not part of the transcript).
  const hint = composer.hint;
  const queued = composer.queued;
  const bottom = useRef<DOMElement>(null);
  const [bottomRows, setBottomRows] = useState(3);
  // Once the cancelled turn has ended, the hint says so (a second Ctrl-C still exits).
  useEffect(() => {
    composer.phaseIs(controller.phase);
  });
  // Bracketed paste: the terminal marks a paste, so that a pasted block is one message
  // however many lines it has (and typed lines stay separate prompts).
  useEffect(() => {
    if (!stdout.isTTY) return;
    stdout.write(ENABLE_BRACKETED_PASTE);
    // Off again however the program ends (a signal's exit does not unmount the view).
    const off = (): void => {
      stdout.write(DISABLE_BRACKETED_PASTE);
    };
    process.once("exit", off);
    return () => {
      process.off("exit", off);
      off();
    };
  }, [stdout]);
  const [sentInitial, setSentInitial] = useState(false);
  // `/mode`, `/model` or `/sessions` alone: the picker open, if any.
  const [picker, setPicker] = useState<PickerCommand | undefined>(undefined);
  // `/login`: the chooser the user asked for. A chooser the agent's -32000 opened is left
  // with Esc: it stays hidden for that failure (until /login, or the next failure).
  const [loginRequested, setLoginRequested] = useState(false);
  const [dismissedFailure, setDismissedFailure] = useState<unknown>(undefined);
  // The agent's session ids, for Tab after `/sessions ` (listed as sessions change).
  const [sessionIds, setSessionIds] = useState<readonly string[]>([]);
  // Prompts sent during a turn wait in the composer's queue (shown above the status line)
  // and go out one by one as turns end.
  const phase = controller.phase;
  const sessionId = controller.sessionId;
  const state = controller.state;
  const settled = sessionId === undefined ? 0 : ui.settledCount(sessionId);
  // A v2 agent's own terminals, for the tool calls that show them.
  if (state !== undefined) ui.followAgentTerminals(state);
  // (Rows are printed while their session is the current one.)
  const answerOf = (item: ThreadItem): PermissionAnswer | undefined =>
    item.type !== "tool_call" || sessionId === undefined
      ? undefined
      : answers?.get(sessionId, item.toolCallId);

  // Items are printed for good once they stop changing: during a turn, finished tool calls
  // and messages something followed; the rest (and the plan) when the turn is over. A
  // history being replayed is printed once it is complete.
  useEffect(() => {
    if (sessionId === undefined || state === undefined || state.loading) return;
    if (phase === "prompting") {
      // Only the unsettled end of the thread is looked at (never the whole thread).
      const from = ui.settledCount(sessionId);
      ui.settle(sessionId, state, from + finishedPrefix(threadSlice(state, from), 0), null);
    } else {
      ui.settle(sessionId, state, threadLength(state), state.plan);
    }
  }, [phase, sessionId, state, ui]);

  const quit = (): void => {
    onQuit();
    ui.leave();
  };

  // Leaving: one last frame without the live area (no input line or spinner left on the
  // screen), then exit. Only after a frame drawn as leaving: the effects of an earlier
  // frame can run after `leave()` (React runs them some time after drawing, and keys are
  // read meanwhile), and exiting then would leave that frame's input line on the screen.
  const drawnLeaving = ui.leaving;
  useEffect(() => {
    if (drawnLeaving) app.exit();
  });

  /**
   * Ctrl-G: the text being written, in the user's editor. The editor gets the terminal as
   * a shell would give it (not in raw mode); the view waits, then takes the keys back and
   * turns on again what the editor may have turned off (bracketed paste, the hidden cursor).
   */
  const openEditor = (): void => {
    const tty = stdin;
    const raw = tty.isTTY && tty.isRaw;
    if (raw) tty.setRawMode(false);
    let outcome: EditorOutcome;
    try {
      outcome = editInEditor(composer.line.text);
    } finally {
      if (raw) tty.setRawMode(true);
      if (stdout.isTTY) stdout.write(`${ENABLE_BRACKETED_PASTE}${HIDE_CURSOR}`);
    }
    if ("text" in outcome) composer.replaceText(outcome.text);
    else ui.notify("error", outcome.problem);
  };

  /** The `!command`s running (Ctrl-C stops them when no turn runs). */
  const shells = useRef(new Set<RunningShell>());

  /** `!command`: run locally, its output shown in the transcript (never sent to the agent). */
  const shell = (command: string): void => {
    if (command === "") {
      ui.notify(
        "info",
        "! runs a shell command here, e.g. !git status (the agent does not see it).",
      );
      return;
    }
    // Said above the status line while it runs (its output comes when it ends).
    const running = `Running !${command.split("\n")[0] ?? ""}… (Ctrl-C stops it)`;
    composer.setHint(running);
    const started = runShell(command, cwd);
    shells.current.add(started);
    void started.result.then((result) => {
      shells.current.delete(started);
      if (composer.hint === running) composer.setHint(undefined);
      ui.notify("info", shellText(command, result));
    });
  };

  /** Runs a client command; leaves when it says so. */
  const clientCommand = (command: string, args: string): void => {
    void runClientCommand(command, args, controller, ui).then((result) => {
      if (result === "quit") quit();
    });
  };

  // Where a line sent goes is decided in input-route.ts; here it is done.
  const send = (text: string): void => {
    const route = routeInput(text, {
      phase: controller.phase,
      agentCommands: (state?.availableCommands ?? []).map((c) => c.name),
    });
    switch (route.kind) {
      case "shell":
        shell(route.command);
        return;
      case "queue":
        composer.enqueue(text);
        return;
      case "needs-login":
        ui.notify("warn", "The agent needs a login first: /login chooses a method.");
        return;
      case "picker":
        // `/mode` with no modes to pick from runs as the command (which says so).
        if (route.command === "sessions" || immediatePicker(route.command, controller)) {
          setPicker(route.command);
        } else clientCommand(route.command, "");
        return;
      case "login":
        if (loginMethods(controller).length === 0) {
          ui.notify("info", "This agent offers no login methods.");
        } else setLoginRequested(true);
        return;
      case "client":
        clientCommand(route.command, route.args);
        return;
      case "unknown":
        ui.notify(
          "warn",
          `Unknown command /${route.command}: /help lists the commands. (To send it to the agent as it is, write //${route.command}.)`,
        );
        return;
      case "prompt":
        prompt(route.text);
        return;
    }
  };

  // A turn's end is told after the turn's items: they are printed first (the effect that
  // prints them runs only after the next frame, later than the notice would be).
  const settleTurn = (turnSession: string | undefined): void => {
    const turnState = turnSession === undefined ? undefined : controller.sessions.get(turnSession);
    if (turnSession === undefined || turnState === undefined || turnState.loading) return;
    ui.settle(turnSession, turnState, threadLength(turnState), turnState.plan);
  };

  const prompt = (text: string): void => {
    composer.resetInterrupts();
    const turnSession = controller.sessionId;
    // `@file` mentions go along as links, or as the files' contents when the agent takes
    // embedded context (the text keeps the mentions as typed).
    const embedded = controller.info?.agentCapabilities?.promptCapabilities?.embeddedContext;
    const blocks = promptBlocks(text, { cwd, embedded: embedded === true });
    void controller.prompt(blocks).then(
      ({ stopReason }) => {
        settleTurn(turnSession);
        // A cancelled turn drops what was queued behind it (said in the same notice: one
        // notice per cancel); else the next one goes out.
        const dropped = stopReason === "cancelled" ? composer.clearQueue() : 0;
        if (stopReason !== "end_turn") {
          ui.notify("warn", `(the turn ended: ${stopReason}${droppedText(dropped, "; ")})`);
        }
        if (stopReason !== "cancelled") sendQueued();
      },
      (error: unknown) => {
        settleTurn(turnSession);
        ui.notify("error", failureText(error));
        const dropped = composer.clearQueue();
        if (dropped > 0) ui.notify("info", `(${droppedText(dropped, "")})`);
      },
    );
  };

  const sendQueued = (): void => {
    const next = composer.dequeue();
    if (next !== undefined) send(next);
  };

  useEffect(() => {
    if (initialPrompt !== undefined && !sentInitial && phase === "ready") {
      setSentInitial(true);
      send(initialPrompt);
    }
  });

  // What was typed while the agent started goes out once it is ready, in order: the
  // client's commands run one after the other; a prompt starts a turn (whose end sends the
  // next); a picker or the login chooser takes the keys (the rest waits for a turn's end).
  const drainTypedAhead = async (): Promise<void> => {
    for (;;) {
      const next = composer.queued[0];
      if (next === undefined) return;
      const alone = runsAlone(next);
      composer.dequeue();
      if (alone === undefined) {
        send(next);
        return;
      }
      const result = await runClientCommand(alone.command, alone.args, controller, ui);
      if (result === "quit") {
        quit();
        return;
      }
      if (controller.phase !== "ready") return;
    }
  };
  const lastPhase = useRef(phase);
  useEffect(() => {
    const before = lastPhase.current;
    lastPhase.current = phase;
    const waited = before === "starting" || before === "auth-required";
    if (waited && phase === "ready" && initialPrompt === undefined) void drainTypedAhead();
  });

  const interrupt = (): void => {
    const action = composer.interrupt(phase, shells.current.size > 0);
    if (action === "cancel-turn") void controller.cancel();
    else if (action === "stop-shell") for (const running of shells.current) void running.stop();
    else if (action === "quit") quit();
  };

  // Whether a question was on the screen when these keys came (as drawn, whichever handler
  // runs first): the question view answers an Esc and removes itself, and that Esc must
  // not cancel the turn too.
  const chooserShown =
    loginRequested || (phase === "auth-required" && controller.authFailure !== dismissedFailure);
  // Also a picker or the login chooser: their Esc is theirs.
  const askingAtRender = ui.questions.length > 0 || picker !== undefined || chooserShown;
  // A history search on the screen takes Ctrl-G (it leaves the search; the input line's
  // handler may have ended it before this one runs).
  const searchingAtRender = composer.search !== undefined;
  useKeys((input, key) => {
    // Keys pressed quickly can arrive as one chunk ("\x03\x03" for two Ctrl-C).
    const presses = Composer.interruptsIn(input, key);
    if (presses > 0) {
      for (let i = 0; i < presses && !composer.leaving; i++) interrupt();
      return;
    }
    // Any other key starts the count again: only two Ctrl-C in a row exit.
    if (composer.armed) composer.resetInterrupts();
    // Esc: with prompts queued, clears the queue; else cancels the running turn. (Not while
    // a question or the login chooser has the keys: Esc answers those; nor when it ended a
    // history search.)
    if (key.escape && !askingAtRender) {
      if (composer.takeEscape()) return;
      if (composer.escape(controller.phase) === "cancel-turn") void controller.cancel();
      return;
    }
    if (key.tab && key.shift && !askingAtRender && controller.phase === "ready") {
      void cycleMode(controller, ui);
      return;
    }
    if (key.ctrl && input === "g" && !askingAtRender && !searchingAtRender) {
      openEditor();
      return;
    }
    if (key.ctrl && input === "t") {
      ui.toggleThoughts();
      composer.setHint(
        ui.showThoughts
          ? "Thoughts are shown in full (Ctrl-T to fold them)."
          : "Thoughts are folded to one line (Ctrl-T to show them).",
      );
    }
    if (phase === "exited") {
      if (input === "r") {
        ui.notify("info", "Restarting the agent…");
        void controller.restart().catch((error: unknown) => ui.notify("error", failureText(error)));
      } else if (input === "q") quit();
    }
  });

  const question = ui.questions[0];
  const live = state === undefined ? [] : threadSlice(state, settled);
  // Keep the session ids for completion: listed once per session opened.
  const canList = controller.client?.canList === true;
  const listedFor = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (!canList || phase !== "ready" || listedFor.current === sessionId) return;
    listedFor.current = sessionId;
    let current = true;
    controller.listSessions().then(
      (sessions) => {
        if (current) setSessionIds(sessions.map((s) => s.sessionId));
      },
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [canList, phase, sessionId, controller]);
  // How tall the status and input lines are (measured: a long status line or a pasted
  // block wraps), so that the live area gets the rest.
  useLayoutEffect(() => {
    if (bottom.current === null) return;
    const { height } = measureElement(bottom.current);
    if (height !== bottomRows) setBottomRows(height);
  });
  // The transcript this mount prints: what an earlier mount of the view printed stays as it
  // is on the screen (Ink's Static starts from the first item on each mount: the whole
  // transcript came again after each terminal login).
  const printedBefore = useRef(ui.printedEntries).current;
  const unprinted = printedBefore === 0 ? ui.transcript : ui.transcript.slice(printedBefore);
  useLayoutEffect(() => {
    ui.printedEntries = printedBefore + unprinted.length;
  });
  const showLivePlan = phase === "prompting" && state?.plan != null && state.plan.length > 0;
  // The live area must stay shorter than the screen (see `Clamped`): Ink redraws
  // everything once its output is as tall as the screen, so keep a row spare, and one for
  // the cursor's line under the input. The layout engine gives the items what the status
  // and input lines leave; the streaming reply is also cut to about that (`liveTail`,
  // from the measured height of those lines) so that its end shows and says what is above.
  const rows = stdout.rows || 24;
  // The rows left for the items (the margin above the status line not measured).
  const liveMax = Math.max(3, rows - bottomRows - 3);
  const liveRows = Math.max(3, liveMax - 2 - (showLivePlan ? state.plan.length + 2 : 0));
  // Keys are taken while the agent starts too: what is typed then is not lost.
  const inputEnabled =
    question === undefined &&
    picker === undefined &&
    !chooserShown &&
    (phase === "ready" ||
      phase === "prompting" ||
      phase === "auth-required" ||
      phase === "starting");
  return (
    <Box flexDirection="column">
      <Static items={unprinted}>
        {(entry) => (
          // Static output is laid out on its own: give it the terminal's width to wrap at.
          <Box key={entry.key} flexDirection="column" width={columns}>
            <TranscriptView entry={entry} ui={ui} answerOf={answerOf} />
          </Box>
        )}
      </Static>
      {drawnLeaving ? null : (
        <Clamped
          spareRows={2}
          bottom={
            <Box ref={bottom} marginTop={1} flexDirection="column" flexShrink={0}>
              {queued.map((text, i) => (
                <Text key={i} dimColor>
                  {"⧗ queued: "}
                  {text.split("\n")[0]}
                  {text.includes("\n") ? " …" : ""}
                </Text>
              ))}
              {queued.length > 0 ? (
                <Text dimColor>(sent when the turn ends · Esc clears the queue)</Text>
              ) : null}
              {hint === undefined ? null : <Text color="yellow">{hint}</Text>}
              <StatusLine controller={controller} state={state} />
              <InputLine
                enabled={inputEnabled}
                canSubmit={
                  phase === "ready" ||
                  phase === "prompting" ||
                  phase === "auth-required" ||
                  phase === "starting"
                }
                commands={allCommands(state?.availableCommands ?? null)}
                values={completionValues(state, sessionIds)}
                onSubmit={send}
                composer={composer}
                maxLines={Math.max(3, Math.floor((stdout.rows || 24) / 3))}
              />
            </Box>
          }
        >
          {live.map((item, i) => (
            <ItemView
              key={settled + i}
              item={item}
              ui={ui}
              asking={question?.request.toolCall.toolCallId}
              answer={answerOf(item)}
              maxRows={i === live.length - 1 ? liveRows : undefined}
            />
          ))}
          {showLivePlan ? <PlanView entries={state.plan} /> : null}
          <FirstQuestion ui={ui} sessions={controller.sessions} />
          {sessionPicker === undefined ? null : (
            <OpenSessionPicker slot={sessionPicker.slot} cwd={sessionPicker.cwd} />
          )}
          {picker !== undefined && question === undefined ? (
            <CommandPicker
              command={picker}
              controller={controller}
              ui={ui}
              onDone={() => setPicker(undefined)}
            />
          ) : null}
          {chooserShown ? (
            <LoginBox
              controller={controller}
              ui={ui}
              suspend={suspend}
              requested={loginRequested}
              onDone={() => {
                setLoginRequested(false);
                setDismissedFailure(controller.authFailure);
              }}
            />
          ) : null}
          {phase === "exited" && controller.wasReady ? (
            <ExitedView controller={controller} />
          ) : null}
        </Clamped>
      )}
    </Box>
  );
}
