/**
 * `npm run demo` (scripts/demo.mjs) builds only the packages whose sources changed since
 * their last build, and says what it does while a build runs. Run against a copy of the
 * script in a stand-in repository whose packages' builds are small scripts, so that the
 * real dist/ is never touched.
 */
import { spawn } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { testTempDir } from "../support/temp-dir.js";

const repoRoot = new URL("../../", import.meta.url).pathname;

/**
 * A build that writes `outputs` and logs its package's name; with `waitFor`, it first
 * waits until that file exists (so that a test sees the script talk while it builds).
 */
const BUILD = `
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
const [name, log, waitFor, ...outputs] = JSON.parse(process.env.FAKE_BUILD);
console.log("DTS Build start");
if (waitFor !== "") while (!existsSync(waitFor)) await new Promise((r) => setTimeout(r, 50));
mkdirSync("dist", { recursive: true });
for (const output of outputs) writeFileSync(output, output === "dist/cli.js" ? 'console.log("demo ran", process.argv.slice(2).join(" "))' : "");
appendFileSync(log, name + "\\n");
`;

function fakeRepository() {
  const dir = testTempDir("acp-kit-demo-script-");
  mkdirSync(join(dir, "scripts"));
  copyFileSync(join(repoRoot, "scripts", "demo.mjs"), join(dir, "scripts", "demo.mjs"));
  writeFileSync(join(dir, "package-lock.json"), "{}");
  const log = join(dir, "builds.log");
  writeFileSync(log, "");
  const release = join(dir, "release");
  const packages = {
    "acp-kit": ["dist/index.js", "dist/index.cjs", "dist/index.d.ts", "dist/scripted-agent.js"],
    cli: ["dist/cli.js"],
  };
  for (const [name, outputs] of Object.entries(packages)) {
    const pkg = join(dir, "packages", name);
    mkdirSync(join(pkg, "src"), { recursive: true });
    writeFileSync(join(pkg, "src", "index.ts"), "export {};\n");
    writeFileSync(join(pkg, "build.mjs"), BUILD);
    const args = JSON.stringify([name, log, name === "acp-kit" ? release : "", ...outputs]);
    writeFileSync(
      join(pkg, "package.json"),
      JSON.stringify({
        name,
        type: "module",
        scripts: { build: `FAKE_BUILD='${args}' node build.mjs` },
      }),
    );
  }
  /** Runs the script; `onStderr` sees its stderr as it comes. */
  const demo = (onStderr: (all: string) => void = () => undefined) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [join(dir, "scripts", "demo.mjs"), "--fast"], {
        cwd: dir,
      });
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
        onStderr(stderr);
      });
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
  const builds = () => readFileSync(log, "utf8").split("\n").filter(Boolean);
  return { dir, release, demo, builds };
}

describe("npm run demo", { timeout: 60_000 }, () => {
  it("builds what changed since the last build, and says so while it builds", async () => {
    const repo = fakeRepository();
    // A fresh clone: both are built; the script talks while the first build waits.
    const first = await repo.demo((stderr) => {
      if (stderr.includes("still building acp-kit") && !existsSync(repo.release)) {
        writeFileSync(repo.release, "");
      }
    });
    expect(first.code).toBe(0);
    expect(repo.builds()).toEqual(["acp-kit", "cli"]);
    expect(first.stderr).toContain("Building acp-kit");
    expect(first.stderr).toMatch(/still building acp-kit \(\d+ s: DTS Build start\)/);
    expect(first.stdout).toContain("demo ran demo --fast");
    // Nothing changed: nothing is built.
    const second = await repo.demo();
    expect(second.code).toBe(0);
    expect(repo.builds()).toEqual(["acp-kit", "cli"]);
    expect(second.stderr).toContain("The build is up to date.");
    expect(second.stdout).toContain("demo ran");
    // A source of the CLI changed: only the CLI is built.
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(repo.dir, "packages", "cli", "src", "index.ts"), later, later);
    const third = await repo.demo();
    expect(third.code).toBe(0);
    expect(repo.builds()).toEqual(["acp-kit", "cli", "cli"]);
    expect(third.stderr).toContain("Building @acp-kit/cli");
    expect(third.stderr).not.toContain("Building acp-kit");
  });
});
