/**
 * What the live view shows of an agent's output, in a real terminal (tmux) of 80x24 (and
 * 60 columns), as a person sees it: fenced code highlighted when there is colour and plain
 * without, long tool output folded to a few lines that Ctrl-O shows in full, and a
 * permission box with long options that keeps its border.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { hasTmux, shellQuote, TmuxSession } from "../support/tmux.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");
const scriptedAgent = join(repoRoot, "packages", "acp-kit", "dist", "scripted-agent.js");
const scenario = join(repoRoot, "test", "cli", "fixtures", "output-scenario.json");
const sessions: TmuxSession[] = [];

/** `run` against the output scenario on a terminal of `width` x `height`. */
function run(width = 80, height = 24, env: Record<string, string> = {}): TmuxSession {
  const command = [process.execPath, cli, "run", "--", process.execPath, scriptedAgent];
  const line = [...command, "--no-delays", scenario].map(shellQuote).join(" ");
  const session = TmuxSession.start(line, { cwd: repoRoot, width, height, env });
  sessions.push(session);
  return session;
}

beforeAll(() => {
  if (!hasTmux()) throw new Error("tmux is needed for the CLI's terminal tests");
  if (!existsSync(cli)) throw new Error("Build first (npm run build)");
});

afterEach(() => {
  for (const session of sessions.splice(0)) session.kill();
});

const ESC = "\u001b";

/** The screen's line (with its escape sequences) that holds `text`. */
function lineWith(screen: string, text: string): string {
  // eslint-disable-next-line no-control-regex
  const plain = (l: string): string => l.replace(/\u001b\[[0-9;]*m/g, "");
  const line = screen.split("\n").find((l) => plain(l).includes(text));
  if (line === undefined) throw new Error(`No line holds ${text}. The screen:\n${screen}`);
  return line;
}

describe("acp-kit run at 80x24: code blocks", () => {
  it("highlights a fenced block with a language; one without stays in one colour", async () => {
    const t = run();
    await t.waitFor("Output agent 1.0.0");
    t.send("show me");
    await t.waitFor("All read.");
    const screen = t.screen(true);
    // Keywords magenta, the number yellow, the comment grey, the function's name blue.
    const first = lineWith(screen, "const answer: number = 42;");
    expect(first).toContain(`${ESC}[35mconst${ESC}[39m`);
    expect(first).toContain(`${ESC}[33m42${ESC}[39m`);
    expect(first).toContain(`${ESC}[90m// the answer`);
    expect(lineWith(screen, "export function double")).toContain(`${ESC}[34mdouble${ESC}[39m`);
    // The language is named above the code; a block without one is all yellow.
    expect(t.screen()).toMatch(/│ ts +│/);
    expect(lineWith(screen, "plain words here")).toContain(`${ESC}[33mplain words here`);
  });

  it("prints the code plain without colour (NO_COLOR)", async () => {
    const t = run(80, 24, { NO_COLOR: "1" });
    await t.waitFor("Output agent 1.0.0");
    t.send("show me");
    await t.waitFor("All read.");
    const line = lineWith(t.screen(true), "const answer: number = 42;");
    expect(line).not.toContain(`${ESC}[3`);
    expect(line).toContain("const answer: number = 42; // the answer");
  });
});

describe("acp-kit run at 80x24: tool output", () => {
  it("folds long output to a few lines; Ctrl-O shows it in full, and folds it again", async () => {
    const t = run();
    await t.waitFor("Output agent 1.0.0");
    t.send("show me");
    let screen = await t.waitFor("All read.");
    // A read result shows its start, a command the end of its output.
    expect(screen).toContain("read line 04 of the long file");
    expect(screen).not.toContain("read line 05 of the long file");
    expect(screen).toContain("… 26 more lines (Ctrl-O to expand)");
    expect(screen).toMatch(/│ … 35 earlier lines \(Ctrl-O to expand\) +│\n +│ 36 +│/);
    expect(screen).not.toMatch(/│ 35 +│/);
    t.keys("C-o");
    screen = await t.waitFor("Tool output is shown in full (Ctrl-O to fold it).");
    // The last folded row is printed again, whole, below the notice.
    const again = screen.slice(screen.indexOf("Tool output is shown in full"));
    expect(again).toContain("✓ run Run seq 1 40");
    for (const n of [1, 2, 20, 35, 40]) expect(again).toMatch(new RegExp(`│ ${n} +│`));
    expect(again).not.toContain("earlier lines");
    // Rows printed from now on are whole too.
    t.send("edit");
    await t.waitFor("Permission requested");
    t.keys("Escape");
    await t.waitFor("Not edited.");
    t.keys("C-o");
    await t.waitFor("Tool output is folded to a few lines (Ctrl-O to show it in full).");
  });
});

/**
 * The permission box as drawn: its rows from the top border to the bottom one; throws
 * when either is not on the screen.
 */
function permissionBox(rows: readonly string[]): string[] {
  const top = rows.findIndex((row) => row.startsWith("╭"));
  const bottom = rows.findIndex((row, i) => i > top && row.startsWith("╰"));
  if (top < 0 || bottom < 0) throw new Error(`No whole box on the screen:\n${rows.join("\n")}`);
  return rows.slice(top, bottom + 1);
}

/**
 * The permission box once it is whole on the screen. (While a turn starts, its first
 * frames can still hold the prompt above the box: the live area is cut at the top until
 * the prompt is printed for good, a frame later.)
 */
async function wholeBox(t: TmuxSession): Promise<{ visible: string[]; box: string[] }> {
  for (let attempt = 0; ; attempt++) {
    const visible = t.visibleRows();
    try {
      return { visible, box: permissionBox(visible) };
    } catch (error) {
      if (attempt === 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

describe("acp-kit run: a permission question with long options", () => {
  it.each([
    [80, 24],
    [60, 24],
  ])("keeps the box's border at %ix%i, options wrapped under themselves", async (w, h) => {
    const t = run(w, h);
    await t.waitFor("Output agent 1.0.0");
    t.send("show me");
    await t.waitFor("All read.");
    t.send("edit");
    await t.waitFor("↑↓ choose · Enter confirm · 1-3 pick · Esc reject");
    const { visible, box } = await wholeBox(t);
    expect(box[1]).toMatch(/^│ Permission requested +│$/);
    // Every row between the borders is framed, none wider than the screen.
    for (const row of box.slice(1, -1)) {
      expect(row).toMatch(/^│.*│$/);
      // (One column per character here: box drawing, ASCII, `❯`, `…`.)
      expect(Array.from(row).length).toBe(w);
    }
    const inside = box.map((row) => row.slice(2, -1).trimEnd()).join("\n");
    // Each option's name whole, its second row under its first word.
    expect(inside).toMatch(/ {2}1\. Always allow edits of files under/);
    expect(inside).toMatch(/\n {5}(?:\S[^\n]* )?this session\n/);
    expect(inside).toContain("❯ 2. Allow this one edit of");
    expect(inside).toMatch(/\n {5}(?:\S[^\n]* )?it\n/);
    // The diff gets what is left, its lines cut to the box, and says how to see the rest.
    expect(inside).toMatch(/-line 1 of the old text, .*…/);
    expect(inside).toMatch(/… \d+ more lines \(Ctrl-O to expand\)/);
    // The status and input lines are under the box.
    expect(visible.slice(visible.indexOf(box.at(-1) ?? "")).join("\n")).toContain("Output agent");
    // Ctrl-O prints the whole diff above the box, which stays as it is.
    t.keys("C-o");
    const screen = await t.waitFor("+line 12 of the new text");
    expect(screen.indexOf("+line 12 of the new text")).toBeLessThan(
      screen.lastIndexOf("Permission requested"),
    );
    expect((await wholeBox(t)).box[1]).toMatch(/^│ Permission requested +│$/);
    // Enter takes the one-time allow.
    t.keys("Enter");
    await t.waitFor("Edited.");
  });
});
