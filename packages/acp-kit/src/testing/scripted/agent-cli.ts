/**
 * The `acp-scripted-agent` program: serves a scenario file (or the built-in demo) as an
 * ACP agent over its stdio, so that any client, in any language, can launch it.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { existsSync, renameSync, writeFileSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { agentStdioStream } from "../../node/agent-stdio.js";
import { demoScenario } from "../scenario/demo.js";
import type { Scenario, ScenarioSession } from "../scenario/types.js";
import { parseScenario, ScenarioError } from "../scenario/validate.js";
import { runScriptedAgent, type ScriptedAgentProtocol } from "./agent.js";
import type { ScriptedCommandRunner, ScriptedFileSystem } from "./v2-steps.js";
import { sliceLines } from "../test-client/files.js";

/** Exit code of the program for a usage error or an invalid scenario. */
export const SCRIPTED_AGENT_USAGE_ERROR = 2;

const USAGE = `Usage: acp-scripted-agent [options] <scenario.json>
       acp-scripted-agent [options] --demo

Serves a scenario as an ACP agent on stdin/stdout (see docs/scripted-agent.md).

Options:
  --demo               serve the built-in demo scenario
  --no-delays          ignore the scenario's delays
  --delay-scale <n>    multiply every delay by n (default 1)
  --sessions-file <f>  keep the sessions in this file across runs (for load and resume)
  --protocol <p>       1 (default): ACP v1; 2: ACP v2 only; auto: both, as the client asks
                       (in v2, terminal steps run their command and file steps use the
                       local files: v2 has no client terminals or file system)
  --check              validate the scenario and exit (0 when valid)
  -h, --help           show this help
`;

interface CliArguments {
  readonly file?: string;
  readonly demo: boolean;
  readonly delayScale: number;
  readonly check: boolean;
  readonly help: boolean;
  readonly sessionsFile?: string;
  readonly protocol: ScriptedAgentProtocol;
}

/** The output channels of the program (stdout carries the protocol while serving). */
export interface ScriptedAgentCliIo {
  /** Writes to stderr. */
  readonly error: (text: string) => void;
  /** Writes to stdout (help only). */
  readonly out: (text: string) => void;
}

const processIo: ScriptedAgentCliIo = {
  error: (text) => process.stderr.write(text),
  out: (text) => process.stdout.write(text),
};

/**
 * Runs the program: validates the scenario (exit code 2 with the problems on stderr when
 * invalid), then serves it over `agentStdioStream()` until stdin closes (exit code 0).
 *
 * @param argv - The arguments after the program name.
 * @param io - Where messages go. Default: the process's stderr and stdout.
 * @returns The exit code.
 */
export async function runScriptedAgentCli(
  argv: readonly string[],
  io: ScriptedAgentCliIo = processIo,
): Promise<number> {
  let args: CliArguments;
  try {
    args = parseArguments(argv);
  } catch (error) {
    io.error(`acp-scripted-agent: ${(error as Error).message}\n\n${USAGE}`);
    return SCRIPTED_AGENT_USAGE_ERROR;
  }
  if (args.help) {
    io.out(USAGE);
    return 0;
  }
  let scenario: Scenario;
  try {
    scenario = args.demo ? demoScenario() : await loadScenarioFile(args.file ?? "");
    if (args.sessionsFile !== undefined) {
      scenario = await withKeptSessions(scenario, args.sessionsFile);
    }
  } catch (error) {
    const message = error instanceof ScenarioError ? error.message : (error as Error).message;
    io.error(`acp-scripted-agent: ${message}\n`);
    return SCRIPTED_AGENT_USAGE_ERROR;
  }
  if (args.check) {
    io.error(`acp-scripted-agent: ${args.file ?? "the demo scenario"} is valid\n`);
    return 0;
  }
  const { sessionsFile } = args;
  // Lines printed outside the protocol go through stdout's own writer, as the protocol's
  // messages do (so they land between two messages): stdout is not redirected then.
  const printing = scenario.agent?.loginOutput !== undefined;
  const connection = runScriptedAgent(scenario, agentStdioStream({ redirectStdout: !printing }), {
    ...(printing ? { printLine: (line: string) => process.stdout.write(`${line}\n`) } : {}),
    delayScale: args.delayScale,
    env: process.env,
    protocol: args.protocol,
    runCommand: runLocalCommand,
    fileSystem: LOCAL_FILES,
    ...(sessionsFile === undefined
      ? {}
      : { onSessionsChange: (sessions) => keepSessions(sessionsFile, sessions) }),
  });
  await connection.closed;
  return 0;
}

/**
 * Reads and validates a scenario file.
 *
 * @param file - Its path.
 * @throws ScenarioError when it is not JSON or not a valid scenario; the file system's
 *   error when it cannot be read.
 */
export async function loadScenarioFile(file: string): Promise<Scenario> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
  return parseScenario(text, file);
}

/**
 * The scenario with the sessions a previous run kept in `file` (if it exists): they replace
 * the declared sessions of the same id (they are those sessions later on).
 */
async function withKeptSessions(scenario: Scenario, file: string): Promise<Scenario> {
  if (!existsSync(file)) return scenario;
  const kept =
    (JSON.parse(await readFile(file, "utf8")) as { sessions?: ScenarioSession[] }).sessions ?? [];
  const keptIds = new Set(kept.map((s) => s.sessionId));
  const declared = (scenario.sessions ?? []).filter((s) => !keptIds.has(s.sessionId));
  return parseScenario(JSON.stringify({ ...scenario, sessions: [...declared, ...kept] }), file);
}

/** Writes the sessions to `file` (whole: a temporary file, then a rename). */
function keepSessions(file: string, sessions: ScenarioSession[]): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify({ sessions }));
  renameSync(temp, file);
}

/** `terminal` steps in v2: the command really runs (stdout and stderr, interleaved). */
const runLocalCommand: ScriptedCommandRunner = (command, signal) =>
  new Promise((resolve, reject) => {
    const env = { ...process.env };
    for (const variable of command.env) env[variable.name] = variable.value;
    const child = spawn(command.command, [...command.args], {
      cwd: command.cwd,
      env,
      signal,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.on("error", reject);
    child.on("close", (exitCode, exitSignal) => {
      let output = Buffer.concat(chunks);
      const limit = command.outputByteLimit;
      if (limit !== undefined && output.length > limit) output = output.subarray(-limit);
      resolve({ output: output.toString("utf8"), exitCode, signal: exitSignal });
    });
  });

/** `readFile` and `writeFile` steps in v2: the local file system. */
const LOCAL_FILES: ScriptedFileSystem = {
  async readTextFile(path, options) {
    return sliceLines(await readFile(path, "utf8"), options.line, options.limit);
  },
  async writeTextFile(path, content) {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  },
};

function parseProtocol(value: string | undefined): ScriptedAgentProtocol {
  if (value === "1") return 1;
  if (value === "2") return 2;
  if (value === "auto") return "auto";
  throw new Error(`--protocol needs 1, 2 or auto, got ${String(value)}`);
}

function parseArguments(argv: readonly string[]): CliArguments {
  let file: string | undefined;
  let demo = false;
  let delayScale = 1;
  let check = false;
  let help = false;
  let sessionsFile: string | undefined;
  let protocol: ScriptedAgentProtocol = 1;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] ?? "";
    if (arg === "-h" || arg === "--help") help = true;
    else if (arg === "--demo") demo = true;
    else if (arg === "--check") check = true;
    else if (arg === "--no-delays") delayScale = 0;
    else if (arg === "--protocol") protocol = parseProtocol(argv[++index]);
    else if (arg.startsWith("--protocol="))
      protocol = parseProtocol(arg.slice("--protocol=".length));
    else if (arg === "--sessions-file") {
      sessionsFile = argv[++index];
      if (sessionsFile === undefined) throw new Error("--sessions-file needs a file");
    } else if (arg === "--delay-scale" || arg.startsWith("--delay-scale=")) {
      const value = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : argv[++index];
      delayScale = Number(value);
      if (value === undefined || value === "" || !Number.isFinite(delayScale) || delayScale < 0) {
        throw new Error(`--delay-scale needs a number of at least 0, got ${String(value)}`);
      }
    } else if (arg.startsWith("-") && arg !== "-") throw new Error(`unknown option ${arg}`);
    else if (file === undefined) file = arg;
    else throw new Error(`unexpected argument ${arg}`);
  }
  if (!help && demo === (file !== undefined)) {
    throw new Error(demo ? "give either --demo or a scenario file" : "missing the scenario file");
  }
  return {
    file,
    demo,
    delayScale,
    check,
    help,
    protocol,
    ...(sessionsFile === undefined ? {} : { sessionsFile }),
  };
}
