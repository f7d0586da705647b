/**
 * A v2 agent behind spawnAgent's bridge, folded in v2: `connectAgent({ protocol: "auto" })`
 * (and anyone who feeds `observeV2Updates` to `SessionStore.applyV2`) keeps the agent's
 * own diffs, terminals and turn states, where the v1 projection would show text. The
 * built scripted agent plays a v2 turn with a diff and a terminal, as a child process.
 */
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type {
  SessionNotification,
  ThreadMessage,
  ThreadToolCall,
} from "../../packages/acp-kit/src/index.js";
import { connectAgent } from "../../packages/acp-kit/src/node/connect-agent.js";
import { spawnAgent } from "../../packages/acp-kit/src/node/spawn/agent.js";
import { SessionStore } from "../../packages/acp-kit/src/session/store.js";
import { terminalOutputText } from "../../packages/acp-kit/src/v2/index.js";

const binary = new URL("../../packages/acp-kit/dist/scripted-agent.js", import.meta.url).pathname;
const temp = realpathSync(mkdtempSync(join(tmpdir(), "acp-v2-fold-")));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const scenario = join(temp, "turn.json");
writeFileSync(
  scenario,
  JSON.stringify({
    turns: [
      {
        steps: [
          { text: "Editing." },
          {
            toolCall: "Edit notes.txt",
            kind: "edit",
            content: [{ diff: "notes.txt", oldText: "one\n", newText: "one\ntwo\n" }],
          },
          { toolUpdate: { status: "completed" } },
          { toolCall: "Run node", kind: "execute" },
          {
            terminal: process.execPath,
            args: ["-e", "console.log('from the agent terminal')"],
          },
          { text: "Done." },
        ],
      },
    ],
  }),
);

function toolCalls(thread: readonly { type: string }[]): ThreadToolCall[] {
  return thread.filter((item): item is ThreadToolCall => item.type === "tool_call");
}

describe.skipIf(!existsSync(binary))("a v2 agent folded in v2 behind the bridge", () => {
  it("connectAgent keeps the v2 diff, the agent's terminal and the turn's state", async () => {
    await using agent = await connectAgent({
      command: process.execPath,
      args: [binary, "--no-delays", "--protocol", "2", scenario],
      cwd: temp,
      protocol: "auto",
    });
    expect(agent.process.protocol).toBe(2);
    const session = await agent.newSession({ cwd: temp });
    expect(await session.prompt("go")).toMatchObject({ stopReason: "end_turn" });
    const state = session.state;
    // One user message (the echo took the prompt over), the agent's text, two calls.
    const messages = state.thread.filter((item): item is ThreadMessage => item.type === "message");
    expect(messages.map((m) => m.role)).toEqual(["user", "agent", "agent"]);
    const [edit, run] = toolCalls(state.thread);
    // The v2 diff as the agent sent it: its changes and patch, not v1's text of it.
    expect(edit?.content).toHaveLength(1);
    expect(edit?.content[0]).toMatchObject({
      type: "diff",
      changes: [{ operation: "modify", path: join(temp, "notes.txt") }],
      patch: { format: "git_patch" },
    });
    expect(JSON.stringify(edit?.content)).toContain("+two");
    expect(run?.content).toEqual([{ type: "terminal", terminalId: "term-1" }]);
    const terminal = state.terminals[0];
    expect(terminal?.terminalId).toBe("term-1");
    expect(terminal === undefined ? "" : terminalOutputText(terminal)).toBe(
      "from the agent terminal\n",
    );
    expect(terminal?.exitStatus).toMatchObject({ exitCode: 0 });
    expect(state.activity).toMatchObject({ state: "idle", stopReason: "end_turn" });
    expect(state.turns).toHaveLength(1);
    expect(state.turns[0]).toMatchObject({ ended: true, stopReason: "end_turn" });
  });

  it("without observeV2Updates the same turn is folded as v1 shows it (lossy)", async () => {
    const store = new SessionStore();
    const heard: string[] = [];
    const spawned = await spawnAgent({
      command: process.execPath,
      args: [binary, "--no-delays", "--protocol", "2", scenario],
      cwd: temp,
      protocol: "auto",
      client: {
        sessionUpdate: (params: SessionNotification) => {
          store.apply(params);
        },
        requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
      },
    });
    try {
      spawned.observeV2Updates((notification) => heard.push(notification.update.sessionUpdate));
      await spawned.initialize();
      const { sessionId } = await spawned.connection.newSession({ cwd: temp, mcpServers: [] });
      await spawned.connection.prompt({ sessionId, prompt: [{ type: "text", text: "go" }] });
      const [edit] = toolCalls(store.get(sessionId)?.thread ?? []);
      // v1 has no v2 diff: the bridge shows its patch as text (and counts it).
      expect(edit?.content[0]?.type).toBe("content");
      expect(spawned.lossy).toMatchObject({ diff_as_patch_text: 1 });
      expect(store.get(sessionId)?.terminals).toEqual([]);
      // The listener heard the agent's own updates, in v2's names.
      expect(heard).toContain("user_message");
      expect(heard).toContain("terminal_output_chunk");
      expect(heard.at(-1)).toBe("state_update");
    } finally {
      await spawned.close();
    }
  });
});
