/**
 * The CLI over remote transports (`--url`), with real processes: `prompt`/`run --url`
 * close their connection (and so the agent behind `serve`); transport failures have their
 * own exit code (33) and a 401 the login one (20); the URL's secrets are never printed or
 * recorded.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  agentPid,
  alive,
  closedPort,
  hangingPrompt,
  killLeftovers,
  leftovers,
  runCli,
  serve,
  stop,
  waitFor,
  type Run,
  type Served,
} from "./remote-harness.js";

afterAll(killLeftovers);

describe("prompt --url closes its connection", { timeout: 120_000 }, () => {
  let served: Served;
  beforeAll(async () => {
    served = await serve(["--max-connections", "3"]);
  });
  afterAll(() => stop(served));

  it("8 prompts in a row against --max-connections 3 (HTTP and WebSocket) all succeed, and each one's agent ends", async () => {
    for (let i = 0; i < 8; i++) {
      const url = i % 2 === 0 ? served.url : served.url.replace("http:", "ws:");
      const result = await runCli(["prompt", "--url", url, "hello"]);
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      const pid = agentPid(result.stdout);
      leftovers.push(pid);
      expect(await waitFor(() => !alive(pid))).toBe(true);
    }
  });
});

describe("remote failures are named as what they are", { timeout: 120_000 }, () => {
  const notTheAgent = (result: Run): void => {
    expect(result.stderr).not.toMatch(/agent reported an error|agent exited/);
    expect(result.stderr).toMatch(/The connection to the remote agent at \S+ failed: /);
  };

  it("a refused connection: 33, HTTP and WebSocket", async () => {
    const port = await closedPort();
    for (const scheme of ["http", "ws"]) {
      const result = await runCli(["prompt", "--url", `${scheme}://127.0.0.1:${port}/acp`, "hi"]);
      expect(result.code).toBe(33);
      notTheAgent(result);
    }
    const json = await runCli(["prompt", "--json", "--url", `http://127.0.0.1:${port}/acp`, "hi"]);
    expect(JSON.parse(json.stdout.trim().split("\n").pop() ?? "{}")).toMatchObject({
      type: "error",
      exitCode: 33,
    });
  });

  it("a transport dropped during the turn: 33, HTTP and WebSocket", async () => {
    for (const scheme of ["http", "ws"]) {
      const served = await serve(["--no-resume"]);
      try {
        const turn = await hangingPrompt(served.url.replace("http:", `${scheme}:`));
        leftovers.push(turn.pid);
        served.child.kill("SIGKILL");
        const result = await turn.done;
        expect(result.code).toBe(33);
        notTheAgent(result);
      } finally {
        await stop(served);
      }
    }
  });

  it("check --url: a refused connection is 33 and a 401 is 20, not a non-conformant agent", async () => {
    const port = await closedPort();
    const refused = await runCli(["check", "--url", `http://127.0.0.1:${port}/acp`]);
    expect(refused.code).toBe(33);
    expect(refused.stdout).not.toMatch(/NOT CONFORMANT/);
    // (The progress lines before it say what the checks saw: the bridge process exiting.)
    expect(refused.stderr.trim().split("\n").pop()).toMatch(
      /^acp-kit: The connection to the remote agent at \S+ failed: /,
    );
    const env = { ACP_TEST_TOKEN: "s3cret-token" };
    const served = await serve(["--token-env", "ACP_TEST_TOKEN"], env);
    try {
      const unauthorized = await runCli(["check", "--url", served.url], { env });
      expect(unauthorized.code).toBe(20);
      expect(unauthorized.stderr).toMatch(/refused the credentials .*HTTP 401/);
    } finally {
      await stop(served);
    }
  });

  it("HTTP 401: the login exit code (20), and what to check, HTTP and WebSocket", async () => {
    const env = { ACP_TEST_TOKEN: "s3cret-token", WRONG_TOKEN: "not-the-token" };
    const served = await serve(["--token-env", "ACP_TEST_TOKEN"], env);
    try {
      const none = await runCli(["prompt", "--url", served.url, "hi"], { env });
      expect(none.code).toBe(20);
      expect(none.stderr).toMatch(
        /refused the credentials .*HTTP 401.*give a token with --token-env/,
      );
      const wrong = await runCli(
        ["prompt", "--url", served.url, "--token-env", "WRONG_TOKEN", "hi"],
        {
          env,
        },
      );
      expect(wrong.code).toBe(20);
      expect(wrong.stderr).toMatch(/check the token in WRONG_TOKEN/);
      // Over a WebSocket, the refused upgrade's status is reported the same way (it was
      // "closed (code 1006)", exit 33).
      const ws = await runCli(
        ["prompt", "--url", served.url.replace(/^http/, "ws"), "--token-env", "WRONG_TOKEN", "hi"],
        { env },
      );
      expect(ws.code, ws.stderr).toBe(20);
      expect(ws.stderr).toMatch(/HTTP 401/);
    } finally {
      await stop(served);
    }
  });
});

describe("--url never shows the URL's secrets", { timeout: 120_000 }, () => {
  const secrets = ["alice", "pa55word", "t0ken-in-query", "s3cret-token"];
  const env = { ACP_TEST_TOKEN: "s3cret-token" };
  let served: Served;
  let dir: string;
  beforeAll(async () => {
    served = await serve(["--token-env", "ACP_TEST_TOKEN"], env);
    dir = mkdtempSync(join(tmpdir(), "acp-kit-remote-"));
  });
  afterAll(async () => {
    await stop(served);
    rmSync(dir, { recursive: true, force: true });
  });

  const withSecrets = (base: string, credentials: boolean): string => {
    const url = new URL(base);
    if (credentials) {
      url.username = "alice";
      url.password = "pa55word";
    }
    url.searchParams.set("token", "t0ken-in-query");
    return url.href;
  };
  const clean = (text: string): void => {
    for (const secret of secrets) expect(text).not.toContain(secret);
  };

  it("not in prompt's output, on success or failure (401, refused), plain or --json", async () => {
    const port = await closedPort();
    const urls = [
      withSecrets(served.url, true),
      withSecrets(served.url.replace("http:", "ws:"), true),
      withSecrets(`http://127.0.0.1:${port}/acp`, true),
    ];
    for (const url of urls) {
      for (const json of [[], ["--json"]]) {
        const result = await runCli(["prompt", ...json, "--url", url, "hi"], { env });
        clean(result.stdout + result.stderr);
        expect(result.code).not.toBe(0);
        expect(result.stderr + result.stdout).toMatch(/\*\*\*@127\.0\.0\.1:\d+\/acp\?token=\*\*\*/);
      }
    }
    const ok = await runCli(
      ["prompt", "--url", withSecrets(served.url, false), "--token-env", "ACP_TEST_TOKEN", "hi"],
      { env },
    );
    expect(ok.code).toBe(0);
    clean(ok.stdout + ok.stderr);
  });

  it("not in run's resume hint nor in the session list (and run --url ends its agent)", async () => {
    const state = join(dir, "state");
    const result = await runCli(
      ["run", "--plain", "--url", withSecrets(served.url, false), "--token-env", "ACP_TEST_TOKEN"],
      { env: { ...env, ACP_KIT_STATE_DIR: state }, input: "hello\n" },
    );
    clean(result.stdout + result.stderr);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/To resume this session: .*--url .*token=\*\*\*/);
    // run --url closed its connection too: the agent behind serve is gone.
    const pid = agentPid(result.stdout);
    leftovers.push(pid);
    expect(await waitFor(() => !alive(pid))).toBe(true);
    // Every file of the state directory (the session list, the recorded transcripts).
    const files = (readdirSync(state, { recursive: true }) as string[])
      .map((f) => join(state, f))
      .filter((f) => statSync(f).isFile());
    expect(files.length).toBeGreaterThan(1);
    for (const file of files) clean(readFileSync(file, "utf8"));
  });

  it("not in a trace --url recording", async () => {
    const out = join(dir, "trace.ndjson");
    const initialize = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: 1, clientCapabilities: {} },
    });
    const result = await runCli(["trace", "--out", out, "--url", withSecrets(served.url, true)], {
      env,
      input: `${initialize}\n`,
    });
    const trace = readFileSync(out, "utf8");
    clean(trace + result.stdout + result.stderr);
    expect(trace).toMatch(/refused the credentials/);
  });
});
