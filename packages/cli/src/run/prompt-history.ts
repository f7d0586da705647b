/**
 * The prompts sent in the live view, kept per directory in the user's state directory
 * (`prompt-history.json` beside the remembered sessions), so that ↑ and Ctrl-R find what
 * was sent here in an earlier run, from any shell.
 *
 * @module
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { defaultStateDir } from "../recent-sessions.js";

/** Prompts sent, oldest first; {@link PromptHistory.add} records one more. */
export interface PromptHistory {
  /** The prompts, oldest first. */
  entries(): readonly string[];
  /** Records a sent prompt (a repeat of the last one is not recorded twice). */
  add(text: string): void;
}

/** How many prompts are kept per directory. */
const MAX_PER_DIRECTORY = 500;

interface HistoryFile {
  readonly version: 1;
  readonly directories: Record<string, string[]>;
}

function readFile(file: string): HistoryFile {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
    if (
      typeof parsed === "object" &&
      parsed !== null &&
      "directories" in parsed &&
      typeof parsed.directories === "object" &&
      parsed.directories !== null
    ) {
      const directories: Record<string, string[]> = {};
      for (const [dir, list] of Object.entries(parsed.directories)) {
        if (Array.isArray(list)) {
          directories[dir] = list.filter((x): x is string => typeof x === "string");
        }
      }
      return { version: 1, directories };
    }
  } catch {
    // Missing or unreadable: start afresh.
  }
  return { version: 1, directories: {} };
}

/** A history kept in memory only (tests, or when the state directory cannot be written). */
export function memoryHistory(initial: readonly string[] = []): PromptHistory {
  const list = [...initial];
  return {
    entries: () => list,
    add: (text) => {
      if (list[list.length - 1] !== text) list.push(text);
    },
  };
}

/**
 * The prompt history of directory `cwd`, kept in `file` (default: `prompt-history.json` in
 * the state directory, see `defaultStateDir`). Each addition reads the file again, so that
 * prompts sent from other shells in the meantime are kept, and replaces it whole. A file
 * that cannot be written leaves the history in memory for this run.
 */
export function fileHistory(
  cwd: string,
  file: string = join(defaultStateDir(), "prompt-history.json"),
): PromptHistory {
  let list = readFile(file).directories[cwd] ?? [];
  return {
    entries: () => list,
    add: (text) => {
      const stored = readFile(file);
      const mine = stored.directories[cwd] ?? [];
      if (mine[mine.length - 1] !== text) mine.push(text);
      list = mine.slice(-MAX_PER_DIRECTORY);
      const next: HistoryFile = {
        version: 1,
        directories: { ...stored.directories, [cwd]: list },
      };
      try {
        mkdirSync(dirname(file), { recursive: true });
        const temp = `${file}.${process.pid}.tmp`;
        writeFileSync(temp, `${JSON.stringify(next)}\n`, { mode: 0o600 });
        renameSync(temp, file);
      } catch {
        // Kept in memory for this run.
      }
    },
  };
}
