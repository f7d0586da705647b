// `npm run demo`: builds both packages, saying so while it works, then runs `acp-kit demo`
// with any further arguments (`npm run demo -- --keep`).
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const started = Date.now();
const seconds = () => ((Date.now() - started) / 1000).toFixed(0);

process.stderr.write("Building acp-kit and @acp-kit/cli (under a minute on most machines)...\n");
const ticker = setInterval(
  () => process.stderr.write(`  still building (${seconds()} s)\n`),
  10_000,
);
const build = spawn("npm", ["run", "build", "--silent"], { cwd: root });
let output = "";
build.stdout.on("data", (chunk) => (output += chunk));
build.stderr.on("data", (chunk) => (output += chunk));
const code = await new Promise((resolve) => build.on("close", resolve));
clearInterval(ticker);
if (code !== 0) {
  process.stderr.write(output);
  process.stderr.write("The build failed; see above.\n");
  process.exit(typeof code === "number" ? code : 1);
}
process.stderr.write(`Built in ${seconds()} s. Starting the demo.\n\n`);

const cli = fileURLToPath(new URL("../packages/cli/dist/cli.js", import.meta.url));
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
