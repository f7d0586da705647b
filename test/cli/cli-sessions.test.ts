/**
 * Sessions that last: `prompt --session NAME` and `--continue`, `run --resume [ID]` (plain,
 * and its picker in a real terminal), the command to resume printed on exit, and replayed
 * history shown as it was typed. The scripted agent keeps its sessions in a file
 * (`--sessions-file`) so that each command, a new agent process, can load them.
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { testTempDir } from "../support/temp-dir.js";
import { hasTmux, shellQuote, TmuxSession } from "../support/tmux.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");
const scriptedAgent = join(repoRoot, "packages", "acp-kit", "dist", "scripted-agent.js");
const base = JSON.parse(
  readFileSync(join(repoRoot, "test", "cli", "fixtures", "cli-scenario.json"), "utf8"),
) as Record<string, unknown>;

/** A slash command as Claude's adapter replays it. */
const REPLAYED_COMMAND =
  "<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>the parser</command-args>";

/** A place to work: a project directory, a state directory and a scenario. */
function workspace(scenario: Record<string, unknown> = {}) {
  const dir = testTempDir("acp-kit-sessions-");
  const project = join(dir, "project");
  mkdirSync(project);
  const file = join(dir, "scenario.json");
  const sessionsFile = join(dir, "agent-sessions.json");
  writeFileSync(file, JSON.stringify({ ...base, ...scenario }));
  // A session's owner ends as soon as its prompts are done: each call starts the agent
  // afresh, as these tests expect (cli-session-owner.test.ts has the warm owner).
  const env = { ACP_KIT_STATE_DIR: join(dir, "state"), ACP_KIT_SESSION_IDLE: "0" };
  const agent = [
    process.execPath,
    scriptedAgent,
    "--no-delays",
    "--sessions-file",
    sessionsFile,
    file,
  ];
  const run = (args: string[], input = "") => {
    const result = spawnSync(process.execPath, [cli, ...args, "--", ...agent], {
      cwd: project,
      input,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1", ...env },
      timeout: 60_000,
    });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };
  const agentSessions = () =>
    (
      JSON.parse(readFileSync(sessionsFile, "utf8")) as {
        sessions: {
          sessionId: string;
          history: { sessionUpdate: string; content?: { text?: string } }[];
        }[];
      }
    ).sessions;
  const remembered = () =>
    (
      JSON.parse(readFileSync(join(dir, "state", "sessions.json"), "utf8")) as {
        sessions: Record<string, unknown>[];
      }
    ).sessions;
  return {
    dir,
    project,
    env,
    agent,
    run,
    agentSessions,
    remembered,
    stateFile: join(dir, "state", "sessions.json"),
  };
}

/** The user messages of a session the scripted agent kept. */
function userMessages(
  session: { history: { sessionUpdate: string; content?: { text?: string } }[] } | undefined,
) {
  return (session?.history ?? [])
    .filter((u) => u.sessionUpdate === "user_message_chunk")
    .map((u) => u.content?.text);
}

beforeAll(() => {
  if (!existsSync(cli)) throw new Error("Build first (npm run build)");
});

describe("acp-kit prompt --session / --continue", () => {
  it("sends every prompt of a name to the same session, opened and remembered the first time", () => {
    const w = workspace();
    const first = w.run(["prompt", "--session", "work", "where are you"]);
    expect(first).toMatchObject({ code: 0, stderr: "" });
    expect(first.stdout).toBe(`in ${w.project}\n`);
    const second = w.run(["prompt", "--session", "work", "please stream"]);
    // The loaded history is not printed again: only this turn's answer.
    expect(second).toEqual({ code: 0, stdout: "one two three four five\n", stderr: "" });
    const other = w.run(["prompt", "--session", "other", "where"]);
    expect(other.code).toBe(0);
    const sessions = w.agentSessions();
    expect(sessions.map((s) => s.sessionId)).toEqual(["session-1", "session-2"]);
    expect(userMessages(sessions[0])).toEqual(["where are you", "please stream"]);
    expect(userMessages(sessions[1])).toEqual(["where"]);
    expect(w.remembered()).toEqual([
      expect.objectContaining({ sessionId: "session-2", name: "other", cwd: w.project }),
      expect.objectContaining({ sessionId: "session-1", name: "work", cwd: w.project }),
    ]);
    // No environment value is stored: only these fields; the title is the first prompt's.
    for (const record of w.remembered()) {
      expect(Object.keys(record).sort()).toEqual(
        ["agent", "createdAt", "cwd", "lastUsedAt", "name", "sessionId", "title"].sort(),
      );
    }
    expect(w.remembered()[1]).toMatchObject({ title: "where are you" });
  });

  it("remembers the title the agent gives the session", () => {
    const w = workspace({
      turns: [{ steps: [{ sessionInfo: { title: "Named by the agent" } }, { text: "ok" }] }],
    });
    expect(w.run(["prompt", "--session", "work", "hello"]).code).toBe(0);
    expect(w.remembered()).toEqual([
      expect.objectContaining({ name: "work", title: "Named by the agent" }),
    ]);
  });

  it("--continue sends to the most recent session of this agent here", () => {
    const w = workspace();
    expect(w.run(["prompt", "--session", "a", "where"]).code).toBe(0);
    expect(w.run(["prompt", "--session", "b", "where"]).code).toBe(0);
    expect(w.run(["prompt", "--session", "a", "where again"]).code).toBe(0);
    const result = w.run(["prompt", "--continue", "--json", "please stream"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('{"type":"session","sessionId":"session-1"}');
    expect(userMessages(w.agentSessions()[0])).toEqual(["where", "where again", "please stream"]);
  });

  it("--continue with nothing to continue, and an agent that cannot load or resume: exit 32", () => {
    const w = workspace();
    const nothing = w.run(["prompt", "--continue", "where"]);
    expect(nothing.code).toBe(32);
    expect(nothing.stderr).toMatch(/No session to continue/);
    const unable = workspace({
      agent: { capabilities: { promptCapabilities: {} }, info: { name: "x", version: "1" } },
    });
    const result = unable.run(["prompt", "--session", "work", "where"]);
    expect(result.code).toBe(32);
    expect(result.stderr).toBe(
      "acp-kit: This agent can neither load nor resume sessions, so --session cannot continue one.\n",
    );
    expect(unable.run(["prompt", "--session", "a", "--continue", "where"]).code).toBe(2);
  });

  it("gives the name to a new session when the agent no longer has the old one", () => {
    const w = workspace();
    expect(w.run(["prompt", "--session", "work", "where"]).code).toBe(0);
    writeFileSync(join(w.dir, "agent-sessions.json"), JSON.stringify({ sessions: [] }));
    const result = w.run(["prompt", "--session", "work", "where"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      'the agent no longer has session session-1; "work" is now a new session',
    );
    expect(w.remembered()).toEqual([
      expect.objectContaining({ sessionId: "session-1", name: "work" }),
    ]);
    expect(w.agentSessions().map((s) => s.sessionId)).toEqual(["session-1"]);
  });

  it("warns about a corrupt session list and goes on", () => {
    const w = workspace();
    mkdirSync(join(w.dir, "state"));
    writeFileSync(w.stateFile, "{ not json");
    const result = w.run(["prompt", "--session", "work", "where"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/acp-kit: the session list .* was unreadable/);
    expect(w.remembered()).toEqual([expect.objectContaining({ name: "work" })]);
  });
});

describe("something other than a file at the session list", () => {
  /** Puts a FIFO, a directory, or a symbolic link to a FIFO at `path`. */
  const make = {
    FIFO: (path: string) => {
      expect(spawnSync("mkfifo", [path]).status).toBe(0);
    },
    directory: (path: string) => mkdirSync(path),
    "link to a FIFO": (path: string) => {
      const target = `${path}.fifo`;
      expect(spawnSync("mkfifo", [target]).status).toBe(0);
      symlinkSync(target, path);
    },
  };
  const said = {
    FIFO: "a FIFO (named pipe)",
    directory: "a directory",
    "link to a FIFO": "a FIFO (named pipe)",
  };

  for (const kind of ["FIFO", "directory", "link to a FIFO"] as const) {
    it.skipIf(process.platform === "win32")(
      `${kind}: prompt answers with a warning, sessions says what is wrong, nothing waits`,
      () => {
        const w = workspace();
        mkdirSync(join(w.dir, "state"));
        make[kind](w.stateFile);
        const warning = `acp-kit: the session list ${w.stateFile} is ${said[kind]}, not a file: sessions are not remembered until it is moved away\n`;
        // Before: a FIFO made prompt wait forever after its answer, and sessions before
        // printing anything; a directory made sessions exit with EISDIR.
        const named = w.run(["prompt", "--session", "work", "where"]);
        expect(named).toEqual({ code: 0, stdout: `in ${w.project}\n`, stderr: warning });
        const plain = w.run(["prompt", "where"]);
        expect(plain).toEqual({ code: 0, stdout: `in ${w.project}\n`, stderr: warning });
        const continued = w.run(["prompt", "--continue", "where"]);
        expect(continued.code).toBe(32);
        expect(continued.stderr).toMatch(
          /^acp-kit: the session list .*\nacp-kit: No session to continue/,
        );
        const sessions = (args: string[]) => {
          const result = spawnSync(process.execPath, [cli, "sessions", ...args], {
            cwd: w.project,
            encoding: "utf8",
            env: { ...process.env, NO_COLOR: "1", ...w.env },
            timeout: 60_000,
          });
          return { code: result.status, stdout: result.stdout, stderr: result.stderr };
        };
        expect(sessions([])).toEqual({ code: 1, stdout: "", stderr: warning });
        expect(sessions(["--all", "--json"])).toEqual({ code: 1, stdout: "", stderr: warning });
        expect(sessions(["forget", "work"])).toEqual({ code: 1, stdout: "", stderr: warning });
        // Left as it was.
        const left = lstatSync(w.stateFile);
        if (kind === "FIFO") expect(left.isFIFO()).toBe(true);
        if (kind === "directory") expect(left.isDirectory()).toBe(true);
        if (kind === "link to a FIFO") expect(left.isSymbolicLink()).toBe(true);
        expect(existsSync(`${w.stateFile}.corrupt`)).toBe(false);
      },
    );
  }
});

describe("something other than a file at the agents file", () => {
  it.skipIf(process.platform === "win32")(
    "a FIFO or a directory: agents and a named agent say what is there, nothing waits",
    () => {
      for (const [kind, said] of [
        ["FIFO", "a FIFO (named pipe)"],
        ["directory", "a directory"],
      ] as const) {
        const w = workspace();
        const config = join(w.dir, "config");
        const file = join(config, "acp-kit", "agents.json");
        mkdirSync(join(config, "acp-kit"), { recursive: true });
        if (kind === "FIFO") expect(spawnSync("mkfifo", [file]).status).toBe(0);
        else mkdirSync(file);
        const cliWith = (args: string[]) => {
          const result = spawnSync(process.execPath, [cli, ...args], {
            cwd: w.project,
            encoding: "utf8",
            env: { ...process.env, NO_COLOR: "1", ...w.env, XDG_CONFIG_HOME: config },
            timeout: 60_000,
          });
          return { code: result.status, stdout: result.stdout, stderr: result.stderr };
        };
        // Before: a FIFO made both wait for ever (readFileSync waits for a writer).
        for (const args of [["agents"], ["prompt", "where", "some-agent"]]) {
          const result = cliWith(args);
          expect(result.code, kind).toBe(2);
          expect(result.stderr).toContain(`acp-kit: ${file}: is ${said}, not a file.`);
        }
      }
    },
  );
});

describe("acp-kit run --resume (plain)", () => {
  const declared = (project: string) => ({
    sessions: [
      {
        sessionId: "alpha-1111",
        cwd: project,
        title: "Fix the parser",
        updatedAt: "2026-01-01T10:00:00Z",
        history: [{ user: REPLAYED_COMMAND }, { agent: "The parser looks fine." }],
      },
      {
        sessionId: "alpha-2222",
        cwd: project,
        title: "Write docs",
        updatedAt: "2026-01-02T10:00:00Z",
      },
    ],
  });

  it("opens the session named by a unique start of its id, replays it as typed, and says how to resume", () => {
    const w = workspace();
    writeFileSync(
      join(w.dir, "scenario.json"),
      JSON.stringify({ ...base, ...declared(w.project) }),
    );
    const result = w.run(["run", "--plain", "--resume", "alpha-1"], "where\n");
    // stdin closes as the turn starts: it ends normally or is cancelled.
    expect([0, 13]).toContain(result.code);
    expect(result.stdout).toMatch(
      /^connected to CLI test agent 1\.2\.3 \(ACP v1\)\n> \/review the parser\nThe parser looks fine\.\n> where\n/,
    );
    expect(result.stdout).not.toContain("<command-name>");
    expect(result.stderr).toContain(
      `To resume this session: acp-kit run --resume alpha-1111 -- ${w.agent.join(" ")}`,
    );
    // Remembered, so that a bare --resume (plain: the most recent) finds it again.
    const again = w.run(["run", "--plain", "--resume"], "");
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("> where");
  });

  it("prints an agent's session id and title without their escape sequences", () => {
    const w = workspace();
    const sessionId = "evil\u001b]0;pwned\u0007\u001b[2J-1";
    writeFileSync(
      join(w.dir, "scenario.json"),
      JSON.stringify({
        ...base,
        sessions: [
          {
            sessionId,
            cwd: w.project,
            title: "Title\u001b[31m red\u001b[0m",
            updatedAt: "2026-01-01T10:00:00Z",
            history: [{ agent: "Hello again." }],
          },
        ],
      }),
    );
    const result = w.run(["run", "--plain", "--resume", "evil"], "");
    expect(result.stdout).toContain("Hello again.");
    expect(result.stderr).toContain("To resume this session: acp-kit run --resume 'evil-1' --");
    for (const text of [result.stdout, result.stderr]) {
      expect(text).not.toContain("\u001b");
      expect(text).not.toContain("\u0007");
    }
  });

  it("refuses a start of an id that fits several, and an id the agent does not know", () => {
    const w = workspace();
    writeFileSync(
      join(w.dir, "scenario.json"),
      JSON.stringify({ ...base, ...declared(w.project) }),
    );
    const ambiguous = w.run(["run", "--plain", "--resume", "alpha"], "");
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stdout).toContain('"alpha" fits several sessions (alpha-2222, alpha-1111)');
    const unknown = w.run(["run", "--plain", "--resume", "zeta-9"], "");
    expect(unknown.code).toBe(32);
    expect(unknown.stdout).toContain("The agent has no session zeta-9");
  });

  it("takes `run --resume NAME` for a named agent, and names it in the command to resume", () => {
    const w = workspace();
    const config = join(w.dir, "config");
    mkdirSync(join(config, "acp-kit"), { recursive: true });
    const [command, ...args] = w.agent;
    writeFileSync(
      join(config, "acp-kit", "agents.json"),
      JSON.stringify({ agents: { scripted: { command, args } } }),
    );
    const named = (words: string[], input = "") =>
      spawnSync(process.execPath, [cli, ...words], {
        cwd: w.project,
        input,
        encoding: "utf8",
        env: { ...process.env, NO_COLOR: "1", ...w.env, XDG_CONFIG_HOME: config },
        timeout: 60_000,
      });
    const none = named(["run", "--plain", "--resume", "scripted"]);
    expect(none.status).toBe(32);
    expect(none.stdout).toContain("No session to resume");
    const first = named(["run", "--plain", "scripted"], "where\n");
    expect(first.stderr).toContain(
      "To resume this session: acp-kit run scripted --resume session-1\n",
    );
    const again = named(["run", "--plain", "--resume", "scripted"]);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain("> where");
  });

  it("prints the command to resume after a plain run", () => {
    const w = workspace();
    const result = w.run(["run", "--plain"], "where\n");
    expect([0, 13]).toContain(result.code);
    expect(result.stderr).toMatch(/^To resume this session: acp-kit run --resume session-1 -- /);
  });
});

const sessions: TmuxSession[] = [];
afterEach(() => {
  for (const session of sessions.splice(0)) session.kill();
});

describe.runIf(hasTmux())("acp-kit run --resume: the picker", () => {
  function start(w: ReturnType<typeof workspace>, args: string[]): TmuxSession {
    const line = [process.execPath, cli, "run", ...args, "--", ...w.agent]
      .map(shellQuote)
      .join(" ");
    const t = TmuxSession.start(line, { cwd: w.project, width: 100, height: 30, env: w.env });
    sessions.push(t);
    return t;
  }

  it("lists recent sessions with title and age, and opens the one highlighted when Enter comes", async () => {
    const w = workspace();
    const history = [{ user: REPLAYED_COMMAND }, { agent: "The parser looks fine." }];
    writeFileSync(
      join(w.dir, "scenario.json"),
      JSON.stringify({
        ...base,
        sessions: [
          {
            sessionId: "alpha-1111",
            cwd: w.project,
            title: "Fix the parser",
            updatedAt: "2026-01-01T10:00:00Z",
            history,
          },
          {
            sessionId: "beta-2222",
            cwd: w.project,
            title: "Write docs",
            updatedAt: "2026-01-02T10:00:00Z",
            history: [{ user: "docs" }, { agent: "Docs written." }],
          },
          { sessionId: "gamma-3333", cwd: "/elsewhere", title: "Another directory" },
        ],
      }),
    );
    // One remembered by acp-kit (newest), merged with the agent's list.
    const first = w.run(["prompt", "--session", "mine", "where"]);
    expect(first.code, first.stderr).toBe(0);
    const t = start(w, ["--resume"]);
    await t.waitFor("Resume a session (3 here)");
    const screen = await t.waitFor("Fix the parser");
    expect(screen).toMatch(
      / {2}\+ New session.*\n.*❯ where · "mine" · just now.*\n.*Write docs · \d+ days ago.*\n.*Fix the parser · \d+ days ago/,
    );
    expect(screen).not.toContain("Another directory");
    // Three keys in one chunk: the highlight is read as each comes.
    t.keys("Down", "Down", "Down", "Enter");
    await t.waitFor("The parser looks fine.");
    const opened = t.screen();
    expect(opened).toContain("› /review the parser");
    expect(opened).not.toContain("<command-name>");
    expect(opened).not.toContain("Resume a session");
    t.send("where");
    await t.waitFor(`in ${w.project}`);
    t.keys("C-c", "C-c");
    await t.waitFor("[exited 0]");
    expect(t.screen()).toMatch(/To resume this session: acp-kit run --resume alpha-1111 -- /);
  });

  it("Esc leaves without opening a session; Enter on the first row opens a new one", async () => {
    const w = workspace();
    const first = w.run(["prompt", "--session", "mine", "where"]);
    expect(first.code, first.stderr).toBe(0);
    const left = start(w, ["--resume"]);
    await left.waitFor("Resume a session (1 here)");
    left.keys("Escape");
    await left.waitFor("[exited 0]");
    expect(left.screen()).not.toContain("To resume");
    const fresh = start(w, ["--resume"]);
    await fresh.waitFor("Resume a session (1 here)");
    // The most recent session is highlighted; the row above it is a new session.
    fresh.keys("Up", "Enter");
    await fresh.waitFor("mode: Ask");
    fresh.send("where");
    await fresh.waitFor(`in ${w.project}`);
    fresh.keys("C-c", "C-c");
    await fresh.waitFor(/To resume this session: acp-kit run --resume session-2 -- /);
  });
});
