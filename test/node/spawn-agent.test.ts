/**
 * spawnAgent with real processes: a raw ACP agent (`fixtures/spawn-raw-agent.js`), an
 * npx-like launcher in front of it, `sh -c` wrappers with grandchildren, and a parent
 * process that exits without closing its agent.
 */
import { spawn } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { readFileSync, readdirSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  ConnectionError,
  type ContentBlock,
  type SessionNotification,
} from "../../packages/acp-kit/src/index.js";
import {
  AgentExitError,
  AgentStartupError,
  type AgentExit,
} from "../../packages/acp-kit/src/node/spawn/errors.js";
import { spawnAgent, type SpawnedAgent } from "../../packages/acp-kit/src/node/spawn/agent.js";
import type { SpawnAgentOptions } from "../../packages/acp-kit/src/node/spawn/options.js";
import { StderrRing } from "../../packages/acp-kit/src/node/spawn/stderr-ring.js";
import { processRunning } from "../support/processes.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const rawAgent = fileURLToPath(new URL("./fixtures/spawn-raw-agent.js", import.meta.url));
const launcher = fileURLToPath(new URL("./fixtures/spawn-launcher.js", import.meta.url));
const parentFixture = fileURLToPath(new URL("./fixtures/spawn-parent.ts", import.meta.url));

const started: SpawnedAgent[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((agent) => agent.close()));
});

async function startRaw(
  flags: string[] = [],
  options: Partial<SpawnAgentOptions> = {},
): Promise<SpawnedAgent> {
  const agent = await spawnAgent({
    command: process.execPath,
    args: [rawAgent, ...flags],
    ...options,
  });
  started.push(agent);
  return agent;
}

async function withSession(agent: SpawnedAgent): Promise<string> {
  await within(agent.initialize(), 20_000, "initialize");
  const { sessionId } = await agent.connection.newSession({ cwd: repoRoot, mcpServers: [] });
  return sessionId;
}

function text(value: string): ContentBlock[] {
  return [{ type: "text", text: value }];
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function waitFor(condition: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Live (non-zombie) processes whose process group is one of `groups`, from /proc. */
function groupMembers(groups: ReadonlySet<number>): number[] {
  const found: number[] = [];
  for (const entry of readdirProc()) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] !== "Z" && fields[0] !== "X" && groups.has(Number(fields[2]))) {
      found.push(Number(entry));
    }
  }
  return found;
}

function readdirProc(): string[] {
  return readdirSync("/proc").filter((name) => /^\d+$/.test(name));
}

function expectClosedByExit(error: unknown, exit: Partial<AgentExit>): AgentExitError {
  expect(error).toBeInstanceOf(ConnectionError);
  const closed = error as ConnectionError;
  expect(closed.code).toBe("connection_closed");
  expect(closed.cause).toBeInstanceOf(AgentExitError);
  const cause = closed.cause as AgentExitError;
  expect(cause).toMatchObject(exit);
  expect(closed.message).toBe(`Connection closed: ${cause.message}`);
  return cause;
}

/** Starts `sh -c <script>`; resolves with the agent and the pid its script reports. */
async function startShell(
  script: string,
  options: Partial<SpawnAgentOptions> = {},
): Promise<{ agent: SpawnedAgent; grandchild: number }> {
  let report: (pid: number) => void = () => undefined;
  const reported = new Promise<number>((resolve) => (report = resolve));
  const agent = await spawnAgent({
    command: "sh",
    args: ["-c", script],
    onStderr: (line) => {
      const match = /^grandchild (\d+)$/.exec(line);
      if (match !== null) report(Number(match[1]));
    },
    ...options,
  });
  started.push(agent);
  const grandchild = await within(reported, 20_000, "the grandchild's pid");
  return { agent, grandchild };
}

const SLEEPER = 'sleep 1000 & echo "grandchild $!" >&2; wait';
const STUBBORN = `trap '' TERM; ${SLEEPER}`;

describe("spawnAgent: talking to the agent", () => {
  it("initializes, routes the agent's notifications to the client, and closes", async () => {
    const updates: SessionNotification[] = [];
    let handedConnection: unknown;
    const agent = await startRaw([], {
      client: (connection) => {
        handedConnection = connection;
        return {
          requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
          sessionUpdate: (params) => void updates.push(params),
        };
      },
    });
    expect(handedConnection).toBe(agent.connection);
    expect(agent.pid).toBe(agent.process.pid);
    const init = await within(agent.initialize(), 20_000, "initialize");
    expect(init.protocolVersion).toBe(1);
    const { sessionId } = await agent.connection.newSession({ cwd: repoRoot, mcpServers: [] });
    await expect(
      agent.connection.prompt({ sessionId, prompt: text("say hello there") }),
    ).resolves.toEqual({ stopReason: "end_turn" });
    expect(updates).toEqual([
      {
        sessionId,
        update: {
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text: "hello there" },
        },
      },
    ]);

    const hanging = rejection(agent.connection.prompt({ sessionId, prompt: text("hang") }));
    const exit = await within(agent.close(), 20_000, "close");
    expect(exit).toBe(await agent.exited);
    expect(agent.exitStatus).toBe(exit);
    const error = await within(hanging, 5000, "the pending prompt");
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).message).toMatch(
      /^Connection closed: the agent is being stopped/,
    );
    expect(agent.connection.signal.aborted).toBe(true);
    // close() is idempotent.
    await expect(agent.close()).resolves.toBe(exit);
  });

  it("is disposable with `await using`", async () => {
    let kept: SpawnedAgent | undefined;
    {
      await using agent = await spawnAgent({ command: process.execPath, args: [rawAgent] });
      kept = agent;
      await within(agent.initialize(), 20_000, "initialize");
    }
    expect(kept.exitStatus).toBeDefined();
    expect(processRunning(kept.pid)).toBe(false);
  });

  it("passes env merged over process.env, or alone with inheritEnv: false, and cwd", async () => {
    const dir = realpathSync(await mkdtemp(join(tmpdir(), "acp-kit-spawn-")));
    try {
      const lines: string[] = [];
      const merged = await spawnAgent({
        command: "sh",
        args: ["-c", 'echo "foo=$ACP_FOO home=${HOME:-none} pwd=$(pwd)" >&2'],
        env: { ACP_FOO: "bar", HOME: undefined },
        cwd: dir,
        onStderr: (line) => lines.push(line),
      });
      started.push(merged);
      await within(merged.exited, 20_000, "the shell's exit");
      await waitFor(() => lines.length > 0, 5000, "the shell's output");
      expect(lines).toEqual([`foo=bar home=none pwd=${dir}`]);

      const alone = await spawnAgent({
        command: "/bin/sh",
        args: ["-c", 'echo "foo=$ACP_FOO path=${PATH:-none}" >&2'],
        env: { ACP_FOO: "only" },
        inheritEnv: false,
      });
      started.push(alone);
      await within(alone.exited, 20_000, "the shell's exit");
      await waitFor(() => alone.stderr.length > 0, 5000, "the shell's output");
      expect(alone.stderr[0]).toMatch(/^foo=only path=/);
      expect(alone.stderr[0]).not.toContain(process.env.PATH ?? "not in the environment");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("keeps the last stderr lines in a bounded ring and hands every line to onStderr", async () => {
    const seen: string[] = [];
    const errors: unknown[] = [];
    const agent = await startRaw(["--noise", "50"], {
      stderrLines: 5,
      onStderr: (line) => {
        seen.push(line);
        if (line === "noise 3") throw new Error("a throwing onStderr");
      },
      connection: { logger: { error: (_message, fields) => void errors.push(fields?.error) } },
    });
    await within(agent.initialize(), 20_000, "initialize");
    await waitFor(() => seen.length >= 50, 5000, "the noise");
    expect(seen).toEqual(Array.from({ length: 50 }, (_, i) => `noise ${i}`));
    expect(agent.stderr).toEqual(["noise 45", "noise 46", "noise 47", "noise 48", "noise 49"]);
    expect(errors).toEqual([new Error("a throwing onStderr")]);
  });
});

describe("spawnAgent: what the agent prints on its stdout that is not ACP", () => {
  it("hands each non-JSON line to onStdout and never answers it with a parse error", async () => {
    const printed: string[] = [];
    const said: string[] = [];
    const agent = await startRaw([], {
      onStdout: (line) => void printed.push(line),
      client: () => ({
        requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
        sessionUpdate: ({ update }) => {
          if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text")
            said.push(update.content.text);
        },
      }),
    });
    await within(agent.initialize(), 20_000, "initialize");
    const { sessionId } = await agent.connection.newSession({ cwd: repoRoot, mcpServers: [] });
    const url = "Please visit https://accounts.example/o/oauth2?code=42 to log in";
    await agent.connection.prompt({ sessionId, prompt: text(`print ${url}`) });
    expect(printed).toEqual([url]);
    // The client writes in order: an answer to the printed line would be read before this.
    await agent.connection.prompt({ sessionId, prompt: text("answers") });
    expect(said).toEqual(["[]"]);
  });

  it("drops such lines silently without onStdout, still never answering them", async () => {
    const said: string[] = [];
    const agent = await startRaw([], {
      client: () => ({
        requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
        sessionUpdate: ({ update }) => {
          if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text")
            said.push(update.content.text);
        },
      }),
    });
    await within(agent.initialize(), 20_000, "initialize");
    const { sessionId } = await agent.connection.newSession({ cwd: repoRoot, mcpServers: [] });
    await agent.connection.prompt({
      sessionId,
      prompt: text("print Enter the authorization code:"),
    });
    await agent.connection.prompt({ sessionId, prompt: text("answers") });
    expect(said).toEqual(["[]"]);
  });
});

describe("StderrRing", () => {
  it("splits chunks into lines: UTF-8 split across chunks, CRLF, long lines, a last partial line", () => {
    const lines: string[] = [];
    const ring = new StderrRing({ capacity: 3, onLine: (line) => lines.push(line) });
    const bytes = Buffer.from("héllo\r\nwörld\n", "utf8");
    ring.push(bytes.subarray(0, 2)); // splits the two bytes of "é"
    ring.push(bytes.subarray(2));
    ring.push("x".repeat(5000) + "\n");
    ring.push("no newline at the end");
    ring.end();
    expect(lines).toEqual(["héllo", "wörld", "x".repeat(2000) + "…", "no newline at the end"]);
    expect(ring.tail()).toEqual(["wörld", "x".repeat(2000) + "…", "no newline at the end"]);
    expect(ring.tail(1)).toEqual(["no newline at the end"]);
  });
});

describe("spawnAgent: when the agent exits", () => {
  it("rejects every pending request at once, naming the exit code and quoting stderr", async () => {
    const agent = await startRaw();
    const sessionId = await withSession(agent);
    const hanging = rejection(agent.connection.prompt({ sessionId, prompt: text("hang") }));
    const crashing = rejection(agent.connection.prompt({ sessionId, prompt: text("crash") }));
    const [first, second] = await within(
      Promise.all([hanging, crashing]),
      20_000,
      "the rejections",
    );
    for (const error of [first, second]) {
      const cause = expectClosedByExit(error, { code: 1, signal: null });
      expect(cause.stderrTail).toEqual([
        "fatal: the flux capacitor broke",
        "    at capacitor.js:42",
      ]);
      expect((error as Error).message).toBe(
        "Connection closed: the agent exited with code 1; its last stderr lines:\n" +
          "  | fatal: the flux capacitor broke\n" +
          "  |     at capacitor.js:42",
      );
    }
    expect(agent.exitStatus).toEqual({ code: 1, signal: null });
    // Later requests fail at once with the same error.
    expectClosedByExit(
      await within(
        rejection(agent.connection.newSession({ cwd: repoRoot, mcpServers: [] })),
        2000,
        "a late request",
      ),
      { code: 1 },
    );
  });

  it("names the signal when the agent is killed", async () => {
    const agent = await startRaw();
    const sessionId = await withSession(agent);
    const error = await within(
      rejection(agent.connection.prompt({ sessionId, prompt: text("suicide") })),
      20_000,
      "the rejection",
    );
    const cause = expectClosedByExit(error, { code: null, signal: "SIGKILL" });
    expect(cause.message).toBe(
      "the agent was killed by signal SIGKILL (it wrote nothing to stderr)",
    );
  });

  it("delivers an answer written just before the exit, then closes with the exit", async () => {
    const agent = await startRaw();
    const sessionId = await withSession(agent);
    await expect(
      within(
        agent.connection.prompt({ sessionId, prompt: text("answer-then-exit") }),
        20_000,
        "the answer",
      ),
    ).resolves.toEqual({ stopReason: "end_turn" });
    await within(agent.connection.closed, 20_000, "the connection to close");
    expectClosedByExit(agent.connection.signal.reason, { code: 7, signal: null });
  });

  it("says stderr was not captured when it is inherited or ignored", async () => {
    const agent = await startRaw([], { stderr: "ignore" });
    const sessionId = await withSession(agent);
    const error = await rejection(agent.connection.prompt({ sessionId, prompt: text("crash") }));
    const cause = expectClosedByExit(error, { code: 1 });
    expect(cause.message).toBe("the agent exited with code 1 (its stderr was not captured)");
    expect(cause.stderrTail).toEqual([]);
    expect(agent.stderr).toEqual([]);
  });

  it("writes to a dead agent's stdin without an uncaught error (EPIPE)", async () => {
    const uncaught: unknown[] = [];
    const record = (error: unknown): void => void uncaught.push(error);
    process.on("uncaughtException", record);
    try {
      // The agent closes its stdin but stays alive: writes fail with EPIPE.
      const closer = await spawnAgent({
        command: "sh",
        args: ["-c", 'exec 0<&-; echo "stdin closed" >&2; exec sleep 1000'],
      });
      started.push(closer);
      await waitFor(() => closer.stderr.includes("stdin closed"), 10_000, "stdin to close");
      const results = await within(
        Promise.all(
          Array.from({ length: 20 }, () =>
            rejection(closer.connection.newSession({ cwd: repoRoot, mcpServers: [] })),
          ),
        ),
        20_000,
        "the failed requests",
      );
      for (const error of results) {
        expect(error).toBeInstanceOf(ConnectionError);
        expect(error).toMatchObject({
          code: "connection_closed",
          message: expect.stringMatching(
            /^Connection closed: writing to the peer failed/,
          ) as unknown,
        });
      }
      expect(closer.exitStatus).toBeUndefined();

      // Requests racing a crash: all reject naming the exit, whether sent before or after it.
      const crasher = await startRaw();
      const crashSession = await withSession(crasher);
      const racing: Promise<unknown>[] = [
        rejection(crasher.connection.prompt({ sessionId: crashSession, prompt: text("crash") })),
      ];
      for (let i = 0; i < 50; i++) {
        racing.push(
          rejection(crasher.connection.prompt({ sessionId: crashSession, prompt: text("hang") })),
        );
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      for (const error of await within(Promise.all(racing), 20_000, "the racing requests")) {
        expectClosedByExit(error, { code: 1 });
      }
    } finally {
      process.removeListener("uncaughtException", record);
    }
    expect(uncaught).toEqual([]);
  });
});

describe("spawnAgent: startup errors", () => {
  it("rejects clearly when the command does not exist", async () => {
    const error = await rejection(
      spawnAgent({ command: "acp-kit-no-such-agent-xyz", args: ["--acp"] }),
    );
    expect(error).toBeInstanceOf(AgentStartupError);
    expect(error).toMatchObject({
      phase: "spawn",
      code: "command_not_found",
      command: "acp-kit-no-such-agent-xyz",
    });
    expect((error as Error).message).toMatch(
      /^Could not start the agent: the command "acp-kit-no-such-agent-xyz" was not found .*on the PATH/,
    );
  });

  it("rejects clearly when the command may not be executed, or the cwd is missing", async () => {
    const dir = await mkdtemp(join(tmpdir(), "acp-kit-spawn-"));
    try {
      const script = join(dir, "agent.sh");
      await writeFile(script, "#!/bin/sh\necho hi\n");
      await chmod(script, 0o644);
      const denied = await rejection(spawnAgent({ command: script }));
      expect(denied).toMatchObject({ phase: "spawn", code: "permission_denied" });
      expect((denied as Error).message).toContain("chmod +x");

      const missing = join(dir, "missing");
      const badCwd = await rejection(spawnAgent({ command: process.execPath, cwd: missing }));
      expect(badCwd).toBeInstanceOf(AgentStartupError);
      expect(badCwd).toMatchObject({ phase: "spawn", code: "invalid_cwd" });
      expect((badCwd as Error).message).toContain(JSON.stringify(missing));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("rejects invalid options with a message naming the option", async () => {
    await expect(spawnAgent({ command: "" })).rejects.toThrow(
      /`command` must be a non-empty string/,
    );
    await expect(spawnAgent({ command: "x", killGraceMs: -1 })).rejects.toThrow(/`killGraceMs`/);
    for (const maxMessageBytes of [0, NaN, -5]) {
      await expect(spawnAgent({ command: "x", maxMessageBytes })).rejects.toThrow(
        /`maxMessageBytes` must be a number of bytes >= 1/,
      );
    }
  });

  it("times out initialize with the phase and the stderr tail, and the agent can be closed", async () => {
    // The time limit starts once the agent's stderr line has arrived: under load, 500 ms
    // could pass before it did, and the tail was empty.
    let booted: () => void = () => undefined;
    const booting = new Promise<void>((resolve) => (booted = resolve));
    const agent = await startRaw(["--silent-init"], {
      onStderr: (line) => {
        if (line === "booting...") booted();
      },
    });
    await within(booting, 20_000, "the agent's stderr line");
    const error = await within(
      rejection(agent.initialize(undefined, { timeoutMs: 500 })),
      20_000,
      "the timeout",
    );
    expect(error).toBeInstanceOf(AgentStartupError);
    expect(error).toMatchObject({
      phase: "initialize",
      code: "timeout",
      stderrTail: ["booting..."],
    });
    expect((error as Error).message).toMatch(
      /^The agent did not answer initialize within 500 ms \(startup phase: initialize/,
    );
    expect((error as Error).message).toContain("  | booting...");
    expect((error as Error).cause).toBeInstanceOf(ConnectionError);
    await within(agent.close(), 20_000, "close");
    expect(processRunning(agent.pid)).toBe(false);
  });

  it("uses initializeTimeoutMs as the default time limit", async () => {
    const agent = await startRaw(["--silent-init"], { initializeTimeoutMs: 300 });
    const error = await within(rejection(agent.initialize()), 20_000, "the timeout");
    expect(error).toMatchObject({ phase: "initialize", code: "timeout" });
  });
});

describe("spawnAgent: no process is left behind", () => {
  it("close() ends an agent started through a launcher, and its grandchild", async () => {
    const launched: number[] = [];
    const grandchildren: number[] = [];
    const agent = await spawnAgent({
      command: process.execPath,
      args: [launcher, process.execPath, rawAgent],
      onStderr: (line) => {
        const match = /^(launched|grandchild) (\d+)$/.exec(line);
        if (match?.[1] === "launched") launched.push(Number(match[2]));
        if (match?.[1] === "grandchild") grandchildren.push(Number(match[2]));
      },
    });
    started.push(agent);
    const sessionId = await withSession(agent);
    await agent.connection.prompt({ sessionId, prompt: text("grandchild") });
    await waitFor(() => grandchildren.length === 1, 10_000, "the grandchild");
    const pids = [agent.pid, ...launched, ...grandchildren];
    expect(pids).toHaveLength(3);
    for (const pid of pids) expect(processRunning(pid)).toBe(true);
    await within(agent.close(), 20_000, "close");
    await waitFor(() => pids.every((pid) => !processRunning(pid)), 10_000, "every process to end");
  });

  it("kills the started agent when the client factory throws", async () => {
    // A sleep with an argument no other process has: found by its command line in /proc.
    const marker = `${1000 + (process.pid % 1000)}.${Date.now() % 100_000}`;
    const running = (): number[] =>
      readdirProc()
        .filter((entry) => {
          try {
            const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
            return cmdline === `sleep\0${marker}\0` && processRunning(Number(entry));
          } catch {
            return false;
          }
        })
        .map(Number);
    const error = await rejection(
      spawnAgent({
        command: "sleep",
        args: [marker],
        client: () => {
          throw new Error("no client today");
        },
      }),
    );
    expect(error).toMatchObject({ message: "no client today" });
    try {
      await waitFor(() => running().length === 0, 10_000, "the agent to end");
    } finally {
      for (const pid of running()) process.kill(pid, "SIGKILL");
    }
  });

  it("SIGKILLs what ignores SIGTERM after the grace period", async () => {
    const { agent, grandchild } = await startShell(STUBBORN, { killGraceMs: 300 });
    const exit = await within(agent.close(), 20_000, "close");
    expect(exit).toEqual({ code: null, signal: "SIGKILL" });
    await waitFor(() => !processRunning(grandchild), 10_000, "the grandchild to end");
  });

  it("ends what a crashed agent left in its group", async () => {
    const grandchildren: number[] = [];
    const agent = await startRaw([], {
      killGraceMs: 300,
      onStderr: (line) => {
        const match = /^grandchild (\d+)$/.exec(line);
        if (match !== null) grandchildren.push(Number(match[1]));
      },
    });
    const sessionId = await withSession(agent);
    const error = await within(
      rejection(agent.connection.prompt({ sessionId, prompt: text("grandchild-crash") })),
      20_000,
      "the crash",
    );
    expectClosedByExit(error, { code: 2 });
    expect(grandchildren).toHaveLength(1);
    await waitFor(
      () => grandchildren.every((pid) => !processRunning(pid)),
      10_000,
      "the grandchild to end",
    );
  });

  it("100 start/close cycles of a wrapper with a grandchild leave no survivor", async () => {
    const groups = new Set<number>();
    const pids: number[] = [];
    const cycle = async (): Promise<void> => {
      const { agent, grandchild } = await startShell(SLEEPER);
      groups.add(agent.pid);
      pids.push(agent.pid, grandchild);
      await within(agent.close(), 20_000, "close");
      started.splice(started.indexOf(agent), 1);
    };
    const lanes = 4;
    await Promise.all(
      Array.from({ length: lanes }, async () => {
        for (let i = 0; i < 100 / lanes; i++) await cycle();
      }),
    );
    expect(groups.size).toBe(100);
    await waitFor(() => pids.every((pid) => !processRunning(pid)), 10_000, "every process to end");
    expect(groupMembers(groups)).toEqual([]);
  }, 60_000);

  for (const mode of ["exit", "throw"] as const) {
    it(`kills the agent's group when the parent process ends (${mode})`, async () => {
      const parent = spawn(process.execPath, ["--import", "tsx", parentFixture, mode], {
        cwd: repoRoot,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      parent.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
      parent.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
      const exit = await within(
        new Promise<number | null>((resolve) => parent.on("exit", (code) => resolve(code))),
        30_000,
        "the parent's exit",
      );
      expect(exit, stderr).toBe(mode === "exit" ? 0 : 1);
      const { leader, grandchild } = JSON.parse(stdout) as { leader: number; grandchild: number };
      if (mode === "throw") expect(stderr).toContain("deliberate uncaught error");
      await waitFor(
        () => !processRunning(leader) && !processRunning(grandchild),
        10_000,
        "the agent's group to end",
      );
    });
  }
});
