/**
 * Drives a program in a real terminal (tmux): start it, send keys, read the screen —
 * as a person would.
 */
import { execFileSync } from "node:child_process";

let counter = 0;

/** A tmux session running one command. */
export class TmuxSession {
  readonly name: string;

  private constructor(name: string) {
    this.name = name;
  }

  /**
   * Starts `command` (a shell command line) in a new detached session of the given size.
   * CI markers, colour settings and the test runner's `NODE_ENV` are removed from the
   * environment (for every command of the line) so that the program behaves as on a
   * person's terminal.
   */
  static start(
    command: string,
    options: { cwd: string; width?: number; height?: number; env?: Record<string, string> },
  ): TmuxSession {
    const name = `acp-kit-test-${process.pid}-${counter++}`;
    // The tmux server's environment is its own: the test's state directory is passed on.
    const state = process.env.ACP_KIT_STATE_DIR;
    const env = Object.entries({
      ...(state === undefined ? {} : { ACP_KIT_STATE_DIR: state }),
      ...options.env,
    })
      .map(([k, v]) => `${k}=${shellQuote(v)}`)
      .join(" ");
    // Unset and exported for the whole command line, which may be several commands.
    const line = `cd ${shellQuote(options.cwd)} && unset CI CONTINUOUS_INTEGRATION GITHUB_ACTIONS NO_COLOR FORCE_COLOR NODE_ENV && export TERM=xterm-256color ${env} && { ${command}; }; echo "[exited $?]"; sleep 600`;
    const args = [
      "new-session",
      "-d",
      "-s",
      name,
      "-x",
      String(options.width ?? 100),
      "-y",
      String(options.height ?? 40),
      line,
    ];
    // The tmux server exits with its last session; a session started while it is shutting
    // down fails. Starting again starts a new server.
    for (let attempt = 1; ; attempt++) {
      try {
        execFileSync("tmux", args, { stdio: "pipe" });
        return new TmuxSession(name);
      } catch (error) {
        if (attempt === 3) throw error;
        execFileSync("sleep", ["0.2"]);
      }
    }
  }

  /** Sends keys (tmux key names such as `Enter`, `C-c`, `Tab`, or literal text). */
  keys(...keys: string[]): void {
    execFileSync("tmux", ["send-keys", "-t", this.name, ...keys]);
  }

  /** Sends literal text (no key-name interpretation). */
  type(text: string): void {
    execFileSync("tmux", ["send-keys", "-t", this.name, "-l", text]);
  }

  /**
   * Pastes text as a terminal does: line breaks as CR, between bracketed-paste markers
   * when the program asked for them.
   */
  paste(text: string): void {
    const buffer = `${this.name}-paste`;
    execFileSync("tmux", ["set-buffer", "-b", buffer, "--", text]);
    execFileSync("tmux", ["paste-buffer", "-p", "-d", "-b", buffer, "-t", this.name]);
  }

  /** Types a line and presses Enter, as a person sends a message. */
  send(text: string): void {
    this.type(text);
    this.keys("Enter");
  }

  /**
   * The visible screen (and the scrollback), as text; with `escapes`, with the colour and
   * style sequences the program used.
   */
  screen(escapes = false): string {
    const args = ["capture-pane", "-p", "-J", ...(escapes ? ["-e"] : []), "-S", "-2000"];
    return execFileSync("tmux", [...args, "-t", this.name], { encoding: "utf8" });
  }

  /** Resizes the window, as a person dragging its corner. */
  resize(width: number, height: number): void {
    execFileSync("tmux", [
      "resize-window",
      "-t",
      this.name,
      "-x",
      String(width),
      "-y",
      String(height),
    ]);
  }

  /**
   * Records everything the program writes from now on (escape sequences included) to
   * `file`; read it with `readFileSync`.
   */
  record(file: string): void {
    execFileSync("tmux", ["pipe-pane", "-t", this.name, "-o", `cat >> ${shellQuote(file)}`]);
  }

  /** The visible screen only (no scrollback), one string per row. */
  visibleRows(): string[] {
    const text = execFileSync("tmux", ["capture-pane", "-p", "-t", this.name], {
      encoding: "utf8",
    });
    return text.replace(/\n$/, "").split("\n");
  }

  /** Waits until the screen matches; throws with the screen when it does not in time. */
  async waitFor(match: string | RegExp, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let screen = "";
    while (Date.now() < deadline) {
      screen = this.screen();
      if (typeof match === "string" ? screen.includes(match) : match.test(screen)) return screen;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`The screen never showed ${String(match)}. It shows:\n${screen}`);
  }

  /** Ends the session (and whatever still runs in it). */
  kill(): void {
    try {
      execFileSync("tmux", ["kill-session", "-t", this.name], { stdio: "ignore" });
    } catch {
      // Already gone.
    }
  }
}

/** True when tmux can be run. */
export function hasTmux(): boolean {
  try {
    execFileSync("tmux", ["-V"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Quotes a string for a POSIX shell. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
