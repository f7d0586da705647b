/**
 * A terminal for Ink in component tests: keys written to its input as raw chunks (one
 * chunk is what one read of a real terminal delivers), its output collected.
 */
import { PassThrough } from "node:stream";
import { render, type Instance, type RenderOptions } from "ink";
import { createElement, type ReactElement } from "react";
import { KeyRouter } from "../../packages/cli/src/run/keys.js";

/** Waits a little: long enough for Ink to take keys and draw. */
export const tick = (ms = 30): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Arrow up, as a terminal sends it. */
export const UP = "\u001b[A";
/** Arrow down. */
export const DOWN = "\u001b[B";
/** Escape. */
export const ESC = "\u001b";
/** Shift-Tab. */
export const SHIFT_TAB = "\u001b[Z";

/** A terminal of `columns` x 40 for `render(..., { stdin, stdout })`. */
export function terminal(columns = 100) {
  const stdout = Object.assign(new PassThrough(), { columns, rows: 40, isTTY: true });
  const stdin = Object.assign(new PassThrough(), {
    isTTY: true,
    setRawMode: () => stdin,
    ref: () => stdin,
    unref: () => stdin,
  });
  let output = "";
  stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  return {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    /** Writes one chunk, as one read of the terminal would deliver it. */
    chunk: (keys: string) => stdin.write(keys),
    /** Everything drawn so far, without escape sequences. */
    // eslint-disable-next-line no-control-regex
    output: () => output.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, ""),
  };
}

/**
 * Ink's `render` with the CLI's key router around the tree, as the live view mounts its
 * views (they take keys through it).
 */
export function renderWithKeys(tree: ReactElement, options: RenderOptions): Instance {
  return render(createElement(KeyRouter, null, tree), options);
}
