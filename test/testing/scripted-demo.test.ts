import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  ClientSideConnection,
  memoryStreamPair,
  messageText,
  PROTOCOL_VERSION,
  type SessionState,
} from "../../packages/acp-kit/src/index.js";
import {
  allowAll,
  ClientToolkit,
  denyAll,
  type PermissionPolicy,
} from "../../packages/acp-kit/src/node/index.js";
import { DEMO_FILE_NAME, demoScenario } from "../../packages/acp-kit/src/testing/scenario/demo.js";
import { runScriptedAgent } from "../../packages/acp-kit/src/testing/scripted/agent.js";

const temp = realpathSync(mkdtempSync(join(tmpdir(), "acp-demo-")));
afterAll(() => rmSync(temp, { recursive: true, force: true }));
const README = "# My project\n\nIt does things.\n";

/** The demo agent in-process, a complete client serving a fresh temp directory. */
async function demo(
  policy: PermissionPolicy,
  files: Record<string, string> = { "README.md": README },
) {
  const dir = mkdtempSync(join(temp, "session-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const pair = memoryStreamPair();
  runScriptedAgent(demoScenario(), pair.agent, { delayScale: 0 });
  const toolkit = new ClientToolkit({ permissions: { policies: [policy] } });
  const agent = new ClientSideConnection(() => toolkit.client(), pair.client);
  await agent.initialize({
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: toolkit.capabilities,
  });
  const { sessionId } = await toolkit.newSession(agent, { cwd: dir, mcpServers: [] });
  const prompt = async (text: string) =>
    (await toolkit.prompt(agent, { sessionId, prompt: [{ type: "text", text }] })).stopReason;
  const state = (): SessionState => {
    const found = toolkit.sessions.get(sessionId);
    if (found === undefined) throw new Error("no session state");
    return found;
  };
  const reply = () => {
    const last = state().thread.findLast((item) => item.type === "message" && item.role === "user");
    const start = last === undefined ? 0 : state().thread.indexOf(last) + 1;
    return state()
      .thread.slice(start)
      .flatMap((item) =>
        item.type === "message" && item.role === "agent" ? [messageText(item)] : [],
      )
      .join("");
  };
  const close = async () => {
    agent.close();
    await toolkit.dispose();
  };
  return { dir, agent, sessionId, prompt, state, reply, close };
}

describe("the demo scenario against a real client in a working directory", () => {
  it("reads the README, writes its own file once allowed and runs node --version", async () => {
    const d = await demo(allowAll());
    expect(await d.prompt("Show me what you can do")).toBe("end_turn");
    const state = d.state();
    expect(state.availableCommands?.map((c) => c.name)).toEqual(["explain", "help"]);
    expect(state.plan?.map((entry) => entry.status)).toEqual([
      "completed",
      "completed",
      "completed",
      "completed",
    ]);
    const calls = state.thread.filter((item) => item.type === "tool_call");
    expect(calls.map((call) => [call.toolCallId, call.kind, call.statusHistory])).toEqual([
      ["call_1", "read", ["pending", "in_progress", "completed"]],
      ["call_2", "edit", ["pending", "in_progress", "completed"]],
      ["call_3", "execute", ["pending", "in_progress", "completed"]],
    ]);
    expect(calls[1]?.content[0]).toMatchObject({ type: "diff", path: join(d.dir, DEMO_FILE_NAME) });
    const anyString: unknown = expect.any(String);
    expect(calls[2]?.content).toEqual([{ type: "terminal", terminalId: anyString }]);
    const text = d.reply();
    expect(text).toContain("```json\n");
    expect(text).toContain(`# My project`);
    expect(text).toMatch(/\$ node --version\nv\d+\.\d+\.\d+\n/);
    expect(text).toContain("1. **Streaming**");
    expect(readdirSync(d.dir).sort()).toEqual(["README.md", DEMO_FILE_NAME]);
    expect(readFileSync(join(d.dir, DEMO_FILE_NAME), "utf8")).toContain(
      `- Directory: \`${d.dir}\``,
    );
    expect(readFileSync(join(d.dir, "README.md"), "utf8")).toBe(README);
    expect(state.info.title).toBe("acp-kit demo");
    // A second tour (new tool call ids) shows the diff against the file it wrote.
    await d.prompt("again");
    const second = d.state().thread.filter((item) => item.type === "tool_call")[4];
    const previous: unknown = expect.stringContaining("# acp-kit demo");
    expect(second?.content[0]).toMatchObject({ type: "diff", oldText: previous });
    await d.close();
  });

  it("changes no file when permission is denied", async () => {
    const d = await demo(denyAll());
    expect(await d.prompt("Show me what you can do")).toBe("end_turn");
    expect(readdirSync(d.dir)).toEqual(["README.md"]);
    expect(readFileSync(join(d.dir, "README.md"), "utf8")).toBe(README);
    expect(d.reply()).toContain("No problem: I left your files alone.");
    const write = d
      .state()
      .thread.find((item) => item.type === "tool_call" && item.kind === "edit");
    expect(write).toMatchObject({ toolCallId: "call_2", status: "failed" });
    await d.close();
  });

  it("goes on without a README", async () => {
    const d = await demo(denyAll(), {});
    expect(await d.prompt("hi")).toBe("end_turn");
    expect(d.reply()).toContain("I found no README.md I could read in");
    expect(readdirSync(d.dir)).toEqual([]);
    await d.close();
  });

  it("explains a file named with /explain, switches modes and helps", async () => {
    const d = await demo(denyAll(), { "notes.txt": "line one\nline two\n" });
    await d.prompt("/explain notes.txt");
    expect(d.reply()).toContain("Here is the start of `notes.txt`");
    expect(d.reply()).toContain("line one\nline two\n");
    await d.prompt("/explain nothing.txt");
    expect(d.reply()).toMatch(/^I couldn't read `nothing\.txt`: /);
    await d.prompt("/explain");
    expect(d.reply()).toBe("Tell me which file, for example `/explain README.md`.\n");
    await d.prompt("/help");
    expect(d.reply()).toContain("`/explain <file>`");
    expect(d.state().currentModeId).toBe("ask");
    await d.prompt("Please switch to code mode");
    expect(d.state().currentModeId).toBe("code");
    await d.agent.setSessionMode({ sessionId: d.sessionId, modeId: "ask" });
    await expect.poll(() => d.state().currentModeId).toBe("ask");
    expect(readdirSync(d.dir)).toEqual(["notes.txt"]);
    await d.close();
  });
});
