/**
 * The real v2 agents (codex-acp, claude-agent-acp; offline, against a fake model) with
 * acp-kit's own client side: `negotiate()` and the v2 `ClientSideConnection`,
 * `spawnAgent({ protocol: "auto" })` (a v1 connection bridged to v2), the CLI's
 * `prompt`, and `acp-kit bridge --as v1` in front of them for a v1 client.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ClientSideConnection as V1ClientSideConnection,
  ndJsonStream,
  RequestError,
  type SessionNotification,
} from "../../packages/acp-kit/src/index.js";
import { spawnAgent, type SpawnedAgent } from "../../packages/acp-kit/src/node/spawn/agent.js";
import { emptySessionState } from "../../packages/acp-kit/src/session/state.js";
import {
  negotiate,
  reduceSessionV2,
  type SessionUpdate,
  type UpdateSessionNotification,
} from "../../packages/acp-kit/src/v2/index.js";
import {
  agentEntry,
  FAKE_MODEL_TEXT,
  nonRootUser,
  sealedHome,
  startFakeModelServer,
  type FakeModelServer,
  type RealAgentKind,
  type RunAs,
  type SealedHome,
} from "../support/real-agents.js";

const TEST_MS = 180_000;
const repoRoot = new URL("../../", import.meta.url).pathname;
const cli = join(repoRoot, "packages", "cli", "dist", "cli.js");
const INFO = { name: "acp-kit-real-client-test", version: "0.0.0" };
const CODEX_LOGIN = { methodId: "api-key", _meta: { "api-key": { apiKey: "sk-fake-acp-kit" } } };

let model: FakeModelServer;
const cleanups: (() => Promise<void> | void)[] = [];

beforeEach(async () => {
  model = await startFakeModelServer();
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await model.close();
});

function home(kind: RealAgentKind, runAs?: RunAs, env?: Record<string, string>): SealedHome {
  const sealed = sealedHome(kind, {
    model,
    ...(runAs === undefined ? {} : { owner: runAs }),
    ...(env === undefined ? {} : { env }),
  });
  cleanups.push(() => sealed.remove());
  return sealed;
}

/** The agent as a child over pipes (in its own process group), as a message stream. */
function child(kind: RealAgentKind, sealed: SealedHome, runAs?: RunAs) {
  const proc = spawn(process.execPath, [agentEntry(kind)], {
    cwd: sealed.workspace,
    env: sealed.env,
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
    ...(runAs === undefined ? {} : { uid: runAs.uid, gid: runAs.gid }),
  });
  proc.stderr.resume();
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  cleanups.push(async () => {
    proc.stdin.end();
    try {
      if (proc.pid !== undefined) process.kill(-proc.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
    await exited;
  });
  return ndJsonStream(
    Writable.toWeb(proc.stdin),
    Readable.toWeb(proc.stdout) as ReadableStream<Uint8Array>,
    {
      closeOutput: true,
    },
  );
}

/** Text of the agent's messages in a folded v2 transcript. */
function agentText(updates: readonly SessionUpdate[], sessionId: string): string {
  let state = emptySessionState(sessionId);
  for (const update of updates) state = reduceSessionV2(state, update);
  return state.thread
    .flatMap((item) => (item.type === "message" && item.role === "agent" ? item.content : []))
    .map((block) => (block.type === "text" ? block.text : ""))
    .join("");
}

describe("acp-kit's client with the real v2 agents", () => {
  it(
    "codex: negotiate() agrees on v2; session/new needs a login; auth/login; a turn folded by reduceSessionV2",
    async () => {
      const sealed = home("codex");
      const updates: SessionUpdate[] = [];
      let idle: () => void = () => undefined;
      const idled = new Promise<void>((resolve) => (idle = resolve));
      const agreed = await negotiate(child("codex", sealed), {
        info: INFO,
        v1: () => ({
          sessionUpdate: () => undefined,
          requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
        }),
        v2: () => ({
          sessionUpdate: (params: UpdateSessionNotification) => {
            updates.push(params.update);
            const u = params.update as { sessionUpdate: string; state?: string };
            if (u.sessionUpdate === "state_update" && u.state === "idle") idle();
          },
        }),
      });
      expect(agreed.version).toBe(2);
      if (agreed.version !== 2) return;
      const agent = agreed.connection;
      cleanups.push(() => agent.close());
      expect(
        agreed.response.authMethods?.map((m) => (m as { methodId?: string }).methodId),
      ).toContain("api-key");
      const refused = await agent.newSession({ cwd: sealed.workspace }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(RequestError);
      expect((refused as RequestError).code).toBe(-32000);
      await agent.login(CODEX_LOGIN);
      const { sessionId } = await agent.newSession({ cwd: sealed.workspace });
      const { messageId } = await agent.prompt({
        sessionId,
        prompt: [{ type: "text", text: "hi" }],
      });
      await idled;
      expect(agentText(updates, sessionId)).toBe(FAKE_MODEL_TEXT);
      expect(updates.some((u) => (u as { messageId?: string }).messageId === messageId)).toBe(true);
    },
    TEST_MS,
  );

  it(
    'codex: spawnAgent({ protocol: "auto" }) gives a v1 connection; authenticate logs in through auth/login; a whole turn',
    async () => {
      const sealed = home("codex");
      const updates: SessionNotification[] = [];
      const agent: SpawnedAgent = await spawnAgent({
        command: process.execPath,
        args: [agentEntry("codex")],
        env: sealed.env,
        cwd: sealed.workspace,
        protocol: "auto",
        client: {
          sessionUpdate: (params) => {
            updates.push(params);
          },
          requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
        },
      });
      cleanups.push(async () => {
        await agent.close();
      });
      const info = await agent.initialize({
        protocolVersion: 1,
        clientCapabilities: {},
        clientInfo: INFO,
      });
      expect(agent.protocol).toBe(2);
      expect(info.authMethods?.map((m) => m.id)).toContain("api-key");
      await expect(
        agent.connection.newSession({ cwd: sealed.workspace, mcpServers: [] }),
      ).rejects.toMatchObject({ code: -32000 });
      await agent.connection.authenticate(CODEX_LOGIN);
      const { sessionId } = await agent.connection.newSession({
        cwd: sealed.workspace,
        mcpServers: [],
      });
      const answer = await agent.connection.prompt({
        sessionId,
        prompt: [{ type: "text", text: "hi" }],
      });
      expect(answer.stopReason).toBe("end_turn");
      const text = updates
        .map((u) => u.update)
        .flatMap((u) =>
          u.sessionUpdate === "agent_message_chunk" && u.content.type === "text"
            ? [u.content.text]
            : [],
        )
        .join("");
      expect(text).toBe(FAKE_MODEL_TEXT);
    },
    TEST_MS,
  );

  it(
    "claude, as a non-root user: negotiate() agrees on v2 and a session is created",
    async () => {
      const runAs = nonRootUser();
      const sealed = home("claude", runAs, { ANTHROPIC_API_KEY: "sk-ant-fake-acp-kit" });
      const agreed = await negotiate(child("claude", sealed, runAs), {
        info: INFO,
        v1: () => ({
          sessionUpdate: () => undefined,
          requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
        }),
        v2: () => ({ sessionUpdate: () => undefined }),
      });
      expect(agreed.version).toBe(2);
      if (agreed.version !== 2) return;
      cleanups.push(() => agreed.connection.close());
      const { sessionId } = await agreed.connection.newSession({ cwd: sealed.workspace });
      expect(typeof sessionId).toBe("string");
    },
    TEST_MS,
  );

  it(
    "claude: the CLI's prompt runs it in v2 (auto) and prints the model's text",
    async () => {
      const sealed = home("claude", undefined, { ANTHROPIC_API_KEY: "sk-ant-fake-acp-kit" });
      // Not spawnSync: the fake model answers from this process, which must keep running.
      const proc = spawn(
        process.execPath,
        [
          cli,
          "prompt",
          "--json",
          "--cwd",
          sealed.workspace,
          "hi",
          "--",
          process.execPath,
          agentEntry("claude"),
        ],
        { cwd: sealed.workspace, env: sealed.env, stdio: ["ignore", "pipe", "pipe"] },
      );
      let stdout = "";
      let stderr = "";
      proc.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
      proc.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve) =>
        proc.once("exit", (c) => resolve(c)),
      );
      expect(code, stderr).toBe(0);
      const events = stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(events[0]).toMatchObject({ type: "initialize", agentProtocol: 2 });
      expect(events.at(-1)).toMatchObject({ type: "stop", stopReason: "end_turn" });
      const text = events
        .map(
          (event) =>
            event.update as { sessionUpdate?: string; content?: { text?: string } } | undefined,
        )
        .flatMap((u) => (u?.sessionUpdate === "agent_message_chunk" ? [u.content?.text ?? ""] : []))
        .join("");
      expect(text).toBe(FAKE_MODEL_TEXT);
    },
    TEST_MS,
  );

  it(
    "claude through `acp-kit bridge --as v1`: a v1 client runs a whole turn",
    async () => {
      const sealed = home("claude", undefined, { ANTHROPIC_API_KEY: "sk-ant-fake-acp-kit" });
      const proc = spawn(
        process.execPath,
        [cli, "bridge", "--as", "v1", "--quiet", "--", process.execPath, agentEntry("claude")],
        {
          cwd: sealed.workspace,
          env: sealed.env,
          stdio: ["pipe", "pipe", "pipe"],
        },
      );
      proc.stderr.resume();
      const exited = new Promise<number | null>((resolve) =>
        proc.once("exit", (code) => resolve(code)),
      );
      const updates: SessionNotification[] = [];
      const agent = new V1ClientSideConnection(
        () => ({
          sessionUpdate: (params) => {
            updates.push(params);
          },
          requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
        }),
        ndJsonStream(
          Writable.toWeb(proc.stdin),
          Readable.toWeb(proc.stdout) as ReadableStream<Uint8Array>,
          { closeOutput: true },
        ),
      );
      cleanups.push(async () => {
        agent.close();
        await exited;
      });
      const info = await agent.initialize({
        protocolVersion: 1,
        clientCapabilities: {},
        clientInfo: INFO,
      });
      expect(info.protocolVersion).toBe(1);
      const { sessionId } = await agent.newSession({ cwd: sealed.workspace, mcpServers: [] });
      const answer = await agent.prompt({ sessionId, prompt: [{ type: "text", text: "hi" }] });
      expect(answer.stopReason).toBe("end_turn");
      const text = updates
        .map((u) => u.update)
        .flatMap((u) =>
          u.sessionUpdate === "agent_message_chunk" && u.content.type === "text"
            ? [u.content.text]
            : [],
        )
        .join("");
      expect(text).toBe(FAKE_MODEL_TEXT);
    },
    TEST_MS,
  );
});
