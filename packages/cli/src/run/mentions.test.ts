import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { listFiles, matchFiles, mentionAt, mentionedFiles, promptBlocks } from "./mentions.js";
import { fileHistory } from "./prompt-history.js";
import { runShell, shellText } from "./shell.js";
import { processRunning } from "../../../../test/support/processes.js";

const dirs: string[] = [];
function project(): string {
  const dir = mkdtempSync(join(tmpdir(), "acp-kit-mentions-"));
  dirs.push(dir);
  mkdirSync(join(dir, "src", "deep"), { recursive: true });
  mkdirSync(join(dir, "node_modules", "x"), { recursive: true });
  mkdirSync(join(dir, "build"));
  writeFileSync(join(dir, "README.md"), "# Read me\n");
  writeFileSync(join(dir, "src", "app.ts"), "export {};\n");
  writeFileSync(join(dir, "src", "deep", "core.ts"), "x");
  writeFileSync(join(dir, "src", "app.log"), "log");
  writeFileSync(join(dir, "node_modules", "x", "index.js"), "");
  writeFileSync(join(dir, "build", "out.js"), "");
  writeFileSync(join(dir, "image.bin"), Buffer.from([1, 0, 2]));
  writeFileSync(join(dir, ".gitignore"), "# built\n/build\n*.log\n");
  return dir;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("mentions", () => {
  it("finds the @word under or just before the cursor", () => {
    expect(mentionAt("see @src/a", 10)).toEqual({ start: 4, end: 10, partial: "src/a" });
    expect(mentionAt("see @src/a now", 7)).toEqual({ start: 4, end: 10, partial: "src/a" });
    expect(mentionAt("mail a@b.c", 10)).toBeUndefined();
    expect(mentionAt("see @x now", 14)).toBeUndefined();
  });

  it("lists files breadth first, skipping node_modules and what .gitignore names", () => {
    const dir = project();
    expect(listFiles(dir)).toEqual([
      ".gitignore",
      "image.bin",
      "README.md",
      "src/app.ts",
      "src/deep/core.ts",
    ]);
    expect(listFiles(dir, 2)).toHaveLength(2);
    expect(listFiles(dir, 100, 0)).not.toContain("src/app.ts");
  });

  it("ranks path prefixes, then name prefixes, then substrings", () => {
    const files = ["src/map.ts", "app.ts", "src/app.ts", "lib/wrapper.ts"];
    expect(matchFiles(files, "ap")).toEqual([
      "app.ts",
      "src/app.ts",
      "src/map.ts",
      "lib/wrapper.ts",
    ]);
    expect(matchFiles(files, "SRC/")).toEqual(["src/app.ts", "src/map.ts"]);
  });

  it("finds the files a text mentions, trailing punctuation aside, once each", () => {
    const dir = project();
    const text = "Compare @src/app.ts, @README.md and (@src/app.ts) with @missing.ts or a@b";
    expect(mentionedFiles(text, dir)).toEqual([join(dir, "src", "app.ts"), join(dir, "README.md")]);
  });

  it("embeds small text files when the agent takes embedded context, else links them", () => {
    const dir = project();
    const text = "read @README.md and @image.bin";
    const readme = pathToFileURL(join(dir, "README.md")).href;
    const image = pathToFileURL(join(dir, "image.bin")).href;
    expect(promptBlocks(text, { cwd: dir, embedded: true })).toEqual([
      { type: "text", text },
      { type: "resource", resource: { uri: readme, text: "# Read me\n" } },
      // A binary file is linked, never embedded.
      { type: "resource_link", uri: image, name: "image.bin", size: 3 },
    ]);
    expect(promptBlocks(text, { cwd: dir, embedded: false })[1]).toEqual({
      type: "resource_link",
      uri: readme,
      name: "README.md",
      size: 10,
    });
    // Too big to embed: linked.
    expect(promptBlocks(text, { cwd: dir, embedded: true, maxBytes: 5 })[1]).toMatchObject({
      type: "resource_link",
    });
    expect(promptBlocks("no mentions", { cwd: dir, embedded: true })).toEqual([
      { type: "text", text: "no mentions" },
    ]);
  });
});

describe("prompt history in a file", () => {
  it("keeps prompts per directory across instances (runs), without repeats", () => {
    const dir = project();
    const file = join(dir, "state", "prompt-history.json");
    const here = fileHistory("/work/a", file);
    here.add("one");
    here.add("two");
    here.add("two");
    fileHistory("/work/b", file).add("elsewhere");
    // Another shell in /work/a meanwhile.
    fileHistory("/work/a", file).add("three");
    expect(fileHistory("/work/a", file).entries()).toEqual(["one", "two", "three"]);
    expect(fileHistory("/work/b", file).entries()).toEqual(["elsewhere"]);
    here.add("four");
    expect(here.entries()).toEqual(["one", "two", "three", "four"]);
  });

  it("starts empty from a missing or broken file", () => {
    const dir = project();
    const file = join(dir, "history.json");
    writeFileSync(file, "{not json");
    expect(fileHistory("/x", file).entries()).toEqual([]);
    fileHistory("/x", file).add("fresh");
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      version: 1,
      directories: { "/x": ["fresh"] },
    });
  });
});

describe("!command", () => {
  it("runs in the directory given and collects stdout and stderr", async () => {
    const dir = project();
    const result = await runShell("ls; echo oops >&2; exit 4", dir).result;
    expect(result.code).toBe(4);
    expect(result.output).toContain("README.md");
    expect(result.output).toContain("oops");
    expect(shellText("x", result)).toMatch(/^! x\n[\s\S]*README\.md[\s\S]*\(exit 4\)$/);
  });

  it("keeps the end of a long output (the last lines are what it shows)", async () => {
    const dir = project();
    const result = await runShell("yes 'a line' | head -n 220000; echo the last line", dir).result;
    expect(result.output.endsWith("a line\nthe last line\n")).toBe(true);
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(1024 * 1024);
  });

  it("stop ends the command and what it started in the background", async () => {
    const dir = project();
    const shell = runShell("sleep 301 & echo $! > bg.pid; echo started; sleep 302", dir);
    const pidFile = join(dir, "bg.pid");
    for (let i = 0; i < 2000 && !existsSync(pidFile); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const background = Number(readFileSync(pidFile, "utf8"));
    expect(background).toBeGreaterThan(0);
    expect(processRunning(background)).toBe(true);
    await shell.stop();
    const result = await shell.result;
    expect(result.stopped).toBe(true);
    expect(shellText("sleep", result)).toMatch(/\(stopped\)$/);
    // Nothing of its group runs once stop() has resolved (the background sleep was left
    // running when only the shell was killed).
    expect(processRunning(background)).toBe(false);
  });

  it("shows the last lines of a long output and says how many are left out", () => {
    const output = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join("\n");
    const text = shellText("seq", { code: 0, signal: null, output }, 3);
    expect(text).toBe("! seq\n… 47 earlier lines\nline 48\nline 49\nline 50");
  });
});
