/**
 * Ctrl-G in the live view: the text being written, opened in the user's editor
 * (`$VISUAL`, else `$EDITOR`, else `vi`; run through the shell as git runs it, so that
 * `code --wait` works); what is saved becomes the text. The editor has the terminal to
 * itself meanwhile: the view waits (the agent's messages wait in their pipe).
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** What the editor left: the new text, or why there is none. */
export type EditorOutcome = { readonly text: string } | { readonly problem: string };

/** The editor to run: `$VISUAL`, else `$EDITOR`, else `vi` (`notepad` on Windows). */
export function editorCommand(env: NodeJS.ProcessEnv = process.env): string {
  for (const value of [env.VISUAL, env.EDITOR]) {
    const command = value?.trim();
    if (command !== undefined && command !== "") return command;
  }
  return process.platform === "win32" ? "notepad" : "vi";
}

/**
 * Runs the editor on `text` (in a private temporary file, removed after) and waits for it.
 * The text is unchanged when the editor fails or exits with a failure (as `:cq` in vi).
 */
export function editInEditor(text: string, env: NodeJS.ProcessEnv = process.env): EditorOutcome {
  const editor = editorCommand(env);
  const dir = mkdtempSync(join(tmpdir(), "acp-kit-prompt-"));
  const file = join(dir, "prompt.md");
  try {
    writeFileSync(file, text, { mode: 0o600 });
    const result =
      process.platform === "win32"
        ? spawnSync(`${editor} "${file}"`, { stdio: "inherit", shell: true, env })
        : spawnSync("/bin/sh", ["-c", `${editor} "$1"`, "sh", file], { stdio: "inherit", env });
    if (result.error !== undefined) {
      return { problem: `Could not run the editor (${editor}): ${result.error.message}` };
    }
    if (result.status !== 0) {
      const how = result.signal ?? `code ${String(result.status)}`;
      return { problem: `The editor (${editor}) exited with ${how}: the text is unchanged.` };
    }
    // An editor ends the file with a line break: not part of the message.
    return { text: readFileSync(file, "utf8").replace(/\r?\n$/, "") };
  } catch (error) {
    return { problem: `Could not edit the text: ${(error as Error).message}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
