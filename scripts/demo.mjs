// `npm run demo`: builds what changed since the last build (nothing, usually), saying what
// it does while it works, then runs `acp-kit demo` with any further arguments
// (`npm run demo -- --keep`).
import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/**
 * The packages, in build order: what a build reads (besides `src/`) and what it writes
 * last (the declarations are written after the code, so an interrupted build lacks them).
 */
const PACKAGES = [
  {
    name: "acp-kit",
    dir: join(root, "packages", "acp-kit"),
    outputs: ["dist/index.js", "dist/index.cjs", "dist/index.d.ts", "dist/scripted-agent.js"],
  },
  { name: "@acp-kit/cli", dir: join(root, "packages", "cli"), outputs: ["dist/cli.js"] },
];
const INPUTS = ["package.json", "tsup.config.ts", "tsconfig.json"];

/** The newest modification time of the files under `path` (0 when there is none). */
function newest(path) {
  const stats = statSync(path, { throwIfNoEntry: false });
  if (stats === undefined) return 0;
  if (!stats.isDirectory()) return stats.mtimeMs;
  let time = 0;
  for (const entry of readdirSync(path)) time = Math.max(time, newest(join(path, entry)));
  return time;
}

/** Whether the package's build is older than its sources (or missing). */
function stale(pkg) {
  let built = Infinity;
  for (const output of pkg.outputs) {
    const stats = statSync(join(pkg.dir, output), { throwIfNoEntry: false });
    if (stats === undefined) return true;
    built = Math.min(built, stats.mtimeMs);
  }
  const sources = Math.max(
    newest(join(pkg.dir, "src")),
    ...INPUTS.map((file) => newest(join(pkg.dir, file))),
    newest(join(root, "package-lock.json")),
  );
  return sources > built;
}

// The build's lines without their colour codes (ESC [ ... m).
const COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");
const plain = (text) => text.replace(COLOUR, "").trim();

/** Builds one package, saying every few seconds how long it has taken and what it does. */
async function build(pkg) {
  const started = Date.now();
  const seconds = () => ((Date.now() - started) / 1000).toFixed(0);
  process.stderr.write(`Building ${pkg.name} (its sources changed since the last build)...\n`);
  let output = "";
  let step = "starting";
  const ticker = setInterval(
    () => process.stderr.write(`  still building ${pkg.name} (${seconds()} s: ${step})\n`),
    5_000,
  );
  const child = spawn("npm", ["run", "build", "--silent"], { cwd: pkg.dir });
  const take = (chunk) => {
    output += chunk;
    const lines = String(chunk).split("\n").map(plain).filter(Boolean);
    if (lines.length > 0) step = lines[lines.length - 1];
  };
  child.stdout.on("data", take);
  child.stderr.on("data", take);
  const code = await new Promise((resolve) => child.on("close", resolve));
  clearInterval(ticker);
  if (code !== 0) {
    process.stderr.write(output);
    process.stderr.write(`The build of ${pkg.name} failed; see above.\n`);
    process.exit(typeof code === "number" && code !== 0 ? code : 1);
  }
  process.stderr.write(`Built ${pkg.name} in ${seconds()} s.\n`);
}

const toBuild = PACKAGES.filter(stale);
if (toBuild.length === 0) {
  process.stderr.write("The build is up to date. Starting the demo.\n\n");
} else {
  for (const pkg of toBuild) await build(pkg);
  process.stderr.write("Starting the demo.\n\n");
}

const cli = join(root, "packages", "cli", "dist", "cli.js");
const child = spawn(process.execPath, [cli, "demo", ...process.argv.slice(2)], {
  stdio: "inherit",
});
// The terminal sends Ctrl-C's SIGINT to the CLI too, which handles it (it ends the agent):
// this process only waits for the CLI and leaves with its code.
const ignore = () => undefined;
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, ignore);
child.on("exit", (exitCode, signal) => {
  process.exitCode = exitCode ?? (signal === null ? 1 : 128);
});
