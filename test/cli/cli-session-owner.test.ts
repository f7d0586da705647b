/**
 * The owner of a named session, with real processes and sockets: two `prompt --session`
 * calls at once share one agent and one history, `--no-wait` queues and returns, `status`
 * and `cancel` act from another shell, the owner ends when idle, and a killed owner's
 * prompts are reported. The agent (`fixtures/owner-agent.mjs`) writes its pid when it
 * starts and a file when a turn waits, so the tests wait on files, not on time.
 */
import { spawn, spawnSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { testTempDir } from "../support/temp-dir.js";
import { hasTmux, shellQuote, TmuxSession } from "../support/tmux.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");
const agentScript = join(repoRoot, "test", "cli", "fixtures", "owner-agent.mjs");

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Waits (a bounded loop) until `check` holds. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function workspace() {
  const dir = testTempDir("acp-kit-owner-");
  const project = join(dir, "project");
  mkdirSync(project);
  const state = join(dir, "state");
  const files = {
    starts: join(dir, "starts"),
    waiting: join(dir, "waiting"),
    mcp: join(dir, "mcp.json"),
  };
  const env = {
    ...process.env,
    NO_COLOR: "1",
    ACP_KIT_STATE_DIR: state,
    OWNER_AGENT_STARTS: files.starts,
    OWNER_AGENT_WAITING: files.waiting,
    OWNER_AGENT_MCP: files.mcp,
  };
  const agent = ["--", process.execPath, agentScript];
  const owners = join(state, "owners");
  /** The pids of the owners described in the owners' directory. */
  const ownerPids = (): number[] =>
    existsSync(owners)
      ? readdirSync(owners)
          .filter((n) => n.endsWith(".json") && !n.endsWith(".queue.json"))
          .flatMap((n) => {
            try {
              return [(JSON.parse(readFileSync(join(owners, n), "utf8")) as { pid: number }).pid];
            } catch {
              return [];
            }
          })
      : [];
  onTestFinished(() => {
    for (const pid of ownerPids()) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Gone already.
      }
    }
  });
  const start = (args: string[]): Promise<Result> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [cli, ...args], { cwd: project, env });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
  const run = (args: string[]): Result => {
    const r = spawnSync(process.execPath, [cli, ...args], {
      cwd: project,
      env,
      encoding: "utf8",
      timeout: 60_000,
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const starts = (): string[] =>
    existsSync(files.starts) ? readFileSync(files.starts, "utf8").trim().split("\n") : [];
  const status = (): { queued: string[]; running: string | null; pid: number } | null =>
    JSON.parse(run(["status", "--json", "--session", "work", ...agent]).stdout) as {
      queued: string[];
      running: string | null;
      pid: number;
    } | null;
  return { dir, project, state, owners, files, agent, start, run, starts, status, ownerPids };
}

beforeAll(() => {
  if (!existsSync(cli)) throw new Error("Build first (npm run build)");
});

describe("prompt --session: one owner per session", () => {
  it("two calls at once share one agent and one history; cancel from another shell", async () => {
    const w = workspace();
    const first = w.start(["prompt", "--session", "work", "please wait", ...w.agent]);
    await until(() => existsSync(w.files.waiting), "the first turn to wait");
    const second = w.start(["prompt", "--session", "work", "second", ...w.agent]);
    await until(() => (w.status()?.queued.length ?? 0) === 1, "the second prompt to queue");
    expect(w.status()).toMatchObject({ running: "please wait", queued: ["second"] });
    const cancel = w.run(["cancel", "--session", "work", ...w.agent]);
    expect(cancel).toMatchObject({ code: 0, stdout: "Cancelling the turn.\n" });
    const [a, b] = await Promise.all([first, second]);
    expect(a.code).toBe(13);
    expect(a.stdout).toMatch(/^turn 1 of (s\d+-1): please wait\n$/);
    const sessionId = /of (\S+):/.exec(a.stdout)?.[1];
    expect(b).toMatchObject({ code: 0, stdout: `turn 2 of ${sessionId}: second\n` });
    expect(b.stderr).toContain("waiting behind 1 prompt of this session");
    // One agent, started once; the same session went on.
    expect(w.starts()).toHaveLength(1);
    const third = w.run(["prompt", "--session", "work", "third", ...w.agent]);
    expect(third).toMatchObject({ code: 0, stdout: `turn 3 of ${sessionId}: third\n` });
    expect(w.starts()).toHaveLength(1);
  });

  it("--no-wait queues and returns; the prompt runs after the turn before it", async () => {
    const w = workspace();
    const first = w.start(["prompt", "--session", "work", "please wait", ...w.agent]);
    await until(() => existsSync(w.files.waiting), "the first turn to wait");
    const queued = w.run(["prompt", "--session", "work", "--no-wait", "later", ...w.agent]);
    expect(queued.code).toBe(0);
    expect(queued.stdout).toBe("");
    expect(queued.stderr).toContain("queued behind 1 prompt; see `acp-kit status --session work");
    expect(w.status()).toMatchObject({ running: "please wait", queued: ["later"] });
    expect(w.run(["cancel", "--session", "work", ...w.agent]).code).toBe(0);
    expect((await first).code).toBe(13);
    const next = w.run(["prompt", "--session", "work", "after", ...w.agent]);
    // "later" was turn 2.
    expect(next.stdout).toMatch(/^turn 3 of s\d+-1: after\n$/);
    expect(w.starts()).toHaveLength(1);
  });

  it("--timeout takes a queued prompt out, or cancels the call's own turn (exit 15)", async () => {
    const w = workspace();
    const first = w.start(["prompt", "--session", "work", "please wait", ...w.agent]);
    await until(() => existsSync(w.files.waiting), "the first turn to wait");
    const queued = w.run([
      "prompt",
      "--session",
      "work",
      "--timeout",
      "200ms",
      "later",
      ...w.agent,
    ]);
    expect(queued.code).toBe(15);
    expect(queued.stderr).toContain("the prompt was taken out of the queue");
    // The other caller's turn goes on.
    expect(w.status()).toMatchObject({ running: "please wait", queued: [] });
    expect(w.run(["cancel", "--session", "work", ...w.agent]).code).toBe(0);
    expect((await first).code).toBe(13);
    const own = w.run([
      "prompt",
      "--session",
      "work",
      "--timeout",
      "200ms",
      "wait again",
      ...w.agent,
    ]);
    expect(own.code).toBe(15);
    expect(own.stdout).toMatch(/^turn 2 of s\d+-1: wait again\n$/);
    expect(own.stderr).toContain("(stop reason: cancelled)");
    expect(w.starts()).toHaveLength(1);
  });

  it("the owner ends after its idle time; its socket is private", async () => {
    const w = workspace();
    const first = w.start([
      "prompt",
      "--session",
      "work",
      "--idle",
      "100ms",
      "please wait",
      ...w.agent,
    ]);
    await until(() => existsSync(w.files.waiting), "the turn to wait");
    const sockets = readdirSync(w.owners).filter((n) => n.endsWith(".sock"));
    expect(sockets).toHaveLength(1);
    expect(statSync(join(w.owners, sockets[0] ?? "")).mode & 0o777).toBe(0o600);
    expect(statSync(w.owners).mode & 0o777).toBe(0o700);
    const [pid] = w.ownerPids();
    expect(pid).toBeTypeOf("number");
    expect(w.run(["cancel", "--session", "work", ...w.agent]).code).toBe(0);
    expect((await first).code).toBe(13);
    // Only the owners' log stays (private too).
    await until(
      () => readdirSync(w.owners).every((n) => n.endsWith(".log")),
      "the owner to clear up",
    );
    const logs = readdirSync(w.owners);
    expect(logs).toHaveLength(1);
    expect(statSync(join(w.owners, logs[0] ?? "")).mode & 0o777).toBe(0o600);
    await until(() => {
      try {
        process.kill(pid ?? 0, 0);
        return false;
      } catch {
        return true;
      }
    }, "the owner to end");
    expect(w.run(["status", "--session", "work", ...w.agent])).toMatchObject({
      code: 1,
      stdout: "The session is not running.\n",
    });
  });

  it("a killed owner: the waiting caller is told, and the next call lists what did not run", async () => {
    const w = workspace();
    const first = w.start(["prompt", "--session", "work", "please wait", ...w.agent]);
    await until(() => existsSync(w.files.waiting), "the turn to wait");
    expect(w.run(["prompt", "--session", "work", "--no-wait", "queued one", ...w.agent]).code).toBe(
      0,
    );
    const pid = w.status()?.pid ?? 0;
    // What the owner wrote to stderr (its log) before it ended is quoted; only its own part.
    const [log] = readdirSync(w.owners).filter((n) => n.endsWith(".log"));
    appendFileSync(join(w.owners, log ?? ""), "TypeError: boom\n");
    process.kill(pid, "SIGKILL");
    const a = await first;
    expect(a.code).toBe(30);
    expect(a.stderr).toContain(
      "the session's owner ended before this prompt finished (it may not have reached the agent); its last words:\n  TypeError: boom\n",
    );
    const next = w.run(["prompt", "--session", "work", "hello", ...w.agent]);
    expect(next.code).toBe(0);
    expect(next.stderr).not.toContain("boom");
    expect(next.stderr).toContain("previous owner ended before finishing 2 prompts");
    expect(next.stderr).toContain('"please wait" (was running), "queued one" (not sent)');
  });

  it("an agent that crashes in a turn: that call is told, and the next starts a new agent", () => {
    const w = workspace();
    expect(w.run(["prompt", "--session", "work", "hello", ...w.agent]).code).toBe(0);
    const crash = w.run(["prompt", "--session", "work", "crash now", ...w.agent]);
    expect(crash.code).toBe(30);
    expect(crash.stderr).toMatch(/acp-kit: .*agent/i);
    // The name is kept; a new owner and agent take the next prompt.
    const next = w.run(["prompt", "--session", "work", "hello again", ...w.agent]);
    expect(next.code).toBe(0);
    expect(w.starts()).toHaveLength(2);
  });
});

describe.skipIf(!hasTmux())("prompt --session on a terminal", () => {
  it("the owner asks the permission question on the terminal of the call whose turn runs", async () => {
    const w = workspace();
    const scripted = join(repoRoot, "packages", "acp-kit", "dist", "scripted-agent.js");
    const scenario = join(repoRoot, "test", "cli", "fixtures", "cli-scenario.json");
    const agent = [
      process.execPath,
      scripted,
      "--no-delays",
      "--sessions-file",
      join(w.dir, "s.json"),
      scenario,
    ];
    const command = `${shellQuote(process.execPath)} ${shellQuote(cli)} prompt --session work 'permission please' -- ${agent.map(shellQuote).join(" ")}`;
    const t = TmuxSession.start(command, {
      cwd: w.project,
      width: 100,
      height: 30,
      env: { ACP_KIT_STATE_DIR: w.state },
    });
    onTestFinished(() => t.kill());
    await t.waitFor("Choose 1-2 (Enter: Allow):");
    // The question came through the owner: it runs.
    expect(w.ownerPids()).toHaveLength(1);
    t.send("2");
    await t.waitFor("REJECTED");
    const screen = await t.waitFor("[exited 0]");
    expect(screen).toContain("[permission] Delete build output: Reject (reject_once), by you");
  });
});

describe("sessions show, history, export, close; titles", () => {
  it("records each turn: show and history without the agent, export as Markdown and JSON", () => {
    const w = workspace();
    expect(
      w.run(["prompt", "--session", "work", "hello there\nsecond line", ...w.agent]).code,
    ).toBe(0);
    // The first prompt's first line is the title until the agent gives one.
    const listed = () =>
      JSON.parse(w.run(["sessions", "--json"]).stdout) as { title?: string; sessionId: string }[];
    expect(listed()).toEqual([expect.objectContaining({ title: "hello there" })]);
    expect(w.run(["prompt", "--session", "work", "title: Parser work", ...w.agent]).code).toBe(0);
    expect(listed()).toEqual([expect.objectContaining({ title: "Parser work" })]);
    const sessionId = listed()[0]?.sessionId ?? "";
    // The agent is not asked: the owner is ended first (its agent with it).
    expect(w.run(["sessions", "close", "work", ...w.agent])).toMatchObject({
      code: 0,
      stdout: `Closed session ${sessionId}.\n`,
    });
    const agents = w.starts().length;
    const show = w.run(["sessions", "show", "work"]);
    expect(show.code).toBe(0);
    expect(show.stdout).toBe(
      `> hello there\n> second line\n\nturn 1 of ${sessionId}: hello there\nsecond line\n\n> title: Parser work\n\nturn 2 of ${sessionId}: title: Parser work\n`,
    );
    expect(w.run(["sessions", "history", sessionId.slice(0, 4)]).stdout).toBe(
      "  1  hello there\n     second line\n  2  title: Parser work\n",
    );
    const md = w.run(["sessions", "export", "work"]).stdout;
    expect(md).toMatch(/^# Parser work\n/);
    expect(md).toContain("## You\n\n> hello there\n> second line");
    const json = JSON.parse(w.run(["sessions", "export", "--format", "json", "work"]).stdout) as {
      items: unknown[];
    };
    expect(json.items).toEqual([
      { type: "message", role: "user", text: "hello there\nsecond line" },
      { type: "message", role: "agent", text: `turn 1 of ${sessionId}: hello there\nsecond line` },
      { type: "message", role: "user", text: "title: Parser work" },
      { type: "message", role: "agent", text: `turn 2 of ${sessionId}: title: Parser work` },
    ]);
    expect(w.starts()).toHaveLength(agents);
    expect(statSync(join(w.state, "transcripts")).mode & 0o777).toBe(0o700);
  });

  it("close ends a running owner; a session not running says so", async () => {
    const w = workspace();
    expect(w.run(["prompt", "--session", "work", "hello", ...w.agent]).code).toBe(0);
    const [pid] = w.ownerPids();
    expect(w.run(["sessions", "close", "work"]).code).toBe(0);
    await until(() => {
      try {
        process.kill(pid ?? 0, 0);
        return false;
      } catch {
        return true;
      }
    }, "the owner to end");
    expect(w.run(["sessions", "close", "work"])).toMatchObject({ code: 1 });
    expect(w.run(["status", "--session", "work", ...w.agent]).code).toBe(1);
  });

  it("a session whose login failed is not kept", () => {
    const w = workspace();
    const scripted = join(repoRoot, "packages", "acp-kit", "dist", "scripted-agent.js");
    const scenario = join(repoRoot, "test", "cli", "fixtures", "prompt-scenario.json");
    const result = w.run([
      "prompt",
      "--session",
      "work",
      "hello apart",
      "--",
      process.execPath,
      scripted,
      "--no-delays",
      scenario,
    ]);
    expect(result.code).toBe(20);
    expect(result.stderr).not.toContain("To resume");
    expect(JSON.parse(w.run(["sessions", "--json"]).stdout)).toEqual([]);
  });
});

describe("--mcp-config", () => {
  it("passes the editors' mcpServers to the agent, secrets read from the environment", () => {
    const w = workspace();
    const config = join(w.dir, "mcp.config.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          files: { command: "npx", args: ["-y", "mcp-files"], env: { TOKEN: "${MCP_SECRET}" } },
          web: { url: "https://mcp.example/api", headers: { Authorization: "Bearer s3cret" } },
        },
      }),
    );
    const r = spawnSync(
      process.execPath,
      [cli, "prompt", "--verbose", "--mcp-config", config, "hello", ...w.agent],
      {
        cwd: w.project,
        env: {
          ...process.env,
          ACP_KIT_STATE_DIR: w.state,
          OWNER_AGENT_MCP: w.files.mcp,
          MCP_SECRET: "env-secret-value",
        },
        encoding: "utf8",
      },
    );
    expect(r.status).toBe(0);
    expect(JSON.parse(readFileSync(w.files.mcp, "utf8"))).toEqual([
      {
        name: "files",
        command: "npx",
        args: ["-y", "mcp-files"],
        env: [{ name: "TOKEN", value: "env-secret-value" }],
      },
      {
        type: "http",
        name: "web",
        url: "https://mcp.example/api",
        headers: [{ name: "Authorization", value: "Bearer s3cret" }],
      },
    ]);
    expect(r.stdout + r.stderr).not.toMatch(/env-secret-value|s3cret/);
  });

  it("an sse server the agent does not take, and a bad file, are errors that show no value", () => {
    const w = workspace();
    const config = join(w.dir, "mcp.config.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { old: { url: "https://x/sse", type: "sse", headers: { K: "hidden-1" } } },
      }),
    );
    const sse = w.run(["prompt", "--mcp-config", config, "hello", ...w.agent]);
    expect(sse.code).not.toBe(0);
    expect(sse.stderr).toContain("the agent does not take sse MCP servers (old)");
    expect(sse.stderr).not.toContain("hidden-1");
    writeFileSync(config, '{ "mcpServers": { "a": { "command": 1, "env": "hidden-2" } } }');
    const bad = w.run(["prompt", "--mcp-config", config, "hello", ...w.agent]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('server "a" has neither a "command" nor a "url"');
    writeFileSync(config, '{ "mcpServers": { "hidden-3');
    const broken = w.run(["prompt", "--mcp-config", config, "hello", ...w.agent]);
    expect(broken).toMatchObject({ code: 2 });
    expect(broken.stderr).toContain("not valid JSON");
    expect(broken.stderr).not.toContain("hidden-3");
  });

  it("with --session, a bad file is the same error, said at once: the owner could not start", () => {
    const w = workspace();
    const config = join(w.dir, "mcp.config.json");
    writeFileSync(config, '{ "mcpServers": { "hidden-4');
    // The owner reads the file; its error is quoted from its log and its exit code kept
    // (before, the call waited 30 s for the owner's socket and said only "did not start").
    const broken = w.run([
      "prompt",
      "--session",
      "work",
      "--mcp-config",
      config,
      "hello",
      ...w.agent,
    ]);
    expect(broken).toMatchObject({ code: 2 });
    expect(broken.stderr).toContain(`--mcp-config ${config}: not valid JSON`);
    expect(broken.stderr).not.toContain("hidden-4");
    expect(w.starts()).toEqual([]);
    // Fixed, the same name works: no owner was left holding it.
    writeFileSync(config, '{ "mcpServers": {} }');
    expect(
      w.run(["prompt", "--session", "work", "--mcp-config", config, "hello", ...w.agent]).code,
    ).toBe(0);
  });
});
