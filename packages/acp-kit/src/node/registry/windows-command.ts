/**
 * Command lines for Windows batch files (`.cmd`, `.bat`), such as the shims npm writes.
 * Node cannot start those without a shell, and `shell: true` does not quote arguments, so
 * the line for `cmd.exe` is built here, once, in a way that can be tested on any system.
 *
 * @module
 */

/**
 * Quotes one argument the way Windows programs split their command line (the rules of the
 * C runtime's `CommandLineToArgvW`): backslashes are literal except before a quote, where
 * they are doubled, and the quote is escaped.
 *
 * @param arg - The argument.
 */
export function quoteWindowsArg(arg: string): string {
  if (arg !== "" && !/[\s"]/.test(arg)) return arg;
  let out = '"';
  let backslashes = 0;
  for (const char of arg) {
    if (char === "\\") {
      backslashes += 1;
      continue;
    }
    if (char === '"') out += "\\".repeat(backslashes * 2 + 1) + '"';
    else out += "\\".repeat(backslashes) + char;
    backslashes = 0;
  }
  return out + "\\".repeat(backslashes * 2) + '"';
}

/**
 * Escapes the characters `cmd.exe` interprets (`( ) % ! ^ " < > & |`) with a caret, so
 * that it passes them on as they are.
 *
 * @param text - Part of a command line.
 */
export function escapeForCmd(text: string): string {
  return text.replace(/[()%!^"<>&|]/g, "^$&");
}

/** A command ready for `child_process.spawn`, with its own quoting. */
export interface WindowsCommand {
  /** The program: `cmd.exe` (or `%ComSpec%`). */
  readonly command: string;
  /** Its arguments, already quoted. */
  readonly args: readonly string[];
  /** Always true: the arguments must reach `cmd.exe` as they are. */
  readonly windowsVerbatimArguments: true;
}

/**
 * The command that starts a batch file with arguments through `cmd.exe`. The program is
 * quoted and escaped once; each argument is escaped twice, because `cmd.exe` parses the
 * line and the batch file parses it again when it passes `%*` on.
 *
 * ```ts
 * windowsBatchCommand("C:\\a b\\agent.cmd", ["--acp", "a&b"]);
 * // { command: "cmd.exe", args: ["/d", "/s", "/c", "\"^\"C:\\a b\\agent.cmd^\" --acp a^^^&b\""], ... }
 * ```
 *
 * @param file - The `.cmd` or `.bat` file (a full path, or a name found on the PATH).
 * @param args - Its arguments.
 * @param comspec - The command interpreter (default `cmd.exe`; pass `process.env.ComSpec`).
 */
export function windowsBatchCommand(
  file: string,
  args: readonly string[],
  comspec = "cmd.exe",
): WindowsCommand {
  const line = [
    escapeForCmd(quoteWindowsArg(file)),
    ...args.map((arg) => escapeForCmd(escapeForCmd(quoteWindowsArg(arg)))),
  ].join(" ");
  return {
    command: comspec,
    args: ["/d", "/s", "/c", `"${line}"`],
    windowsVerbatimArguments: true,
  };
}

/** Whether a program is a Windows batch file, which needs {@link windowsBatchCommand}. */
export function isBatchFile(file: string): boolean {
  return /\.(cmd|bat)$/i.test(file);
}
