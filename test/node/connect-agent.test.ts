import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";
import {
  AgentSideConnection,
  AuthRequiredError,
  ClientSideConnection,
  memoryStreamPair,
  messageText,
  PROTOCOL_VERSION,
  type ContentBlock,
} from "../../packages/acp-kit/src/index.js";
import {
  allowAll,
  ClientToolkit,
  connectAgent,
  denyAll,
  permissionRules,
} from "../../packages/acp-kit/src/node/index.js";

const repoRoot = new URL("../../", import.meta.url).pathname;
const temp = realpathSync(mkdtempSync(join(tmpdir(), "acp-connect-")));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

function setup(name: string): { dir: string; notes: string; prompt: ContentBlock[] } {
  const dir = mkdtempSync(join(temp, `${name}-`));
  const notes = join(dir, "notes.txt");
  writeFileSync(notes, "Shopping list\n- apples\n");
  return {
    dir,
    notes,
    prompt: [
      { type: "text", text: "Please tidy up my notes." },
      { type: "resource_link", uri: pathToFileURL(notes).href, name: "notes.txt" },
    ],
  };
}

const exampleAgent = {
  command: process.execPath,
  args: ["--import", "tsx", "examples/agent.ts"],
  cwd: repoRoot,
};

describe("connectAgent with the example agent (a real process)", () => {
  it("serves files, a terminal and a permission, and folds the turn into the thread", async () => {
    const { dir, notes, prompt } = setup("allow");
    await using agent = await connectAgent({
      ...exampleAgent,
      permissions: { policies: [allowAll()] },
    });
    expect(agent.info.protocolVersion).toBe(PROTOCOL_VERSION);
    expect(agent.toolkit.capabilities).toEqual({
      fs: { readTextFile: true, writeTextFile: true },
      terminal: true,
    });
    const session = await agent.newSession({ cwd: dir });
    const changes: string[] = [];
    const unsubscribe = session.subscribe(({ change }) => changes.push(change.type));
    const { stopReason } = await session.prompt(prompt);
    unsubscribe();
    expect(stopReason).toBe("end_turn");
    expect(readFileSync(notes, "utf8")).toContain("Reviewed by the example agent.");
    const thread = session.state.thread;
    const toolCalls = thread.filter((i) => i.type === "tool_call");
    expect(toolCalls.map((c) => [c.title, c.status])).toEqual([
      ["Read notes.txt", "completed"],
      ["Add a review note to notes.txt", "completed"],
      ["List the files of the session directory", "completed"],
    ]);
    const first = thread[0];
    expect(first?.type === "message" && first.role === "user" && messageText(first)).toBe(
      "Please tidy up my notes.",
    );
    expect(changes.length).toBeGreaterThan(5);
    // The terminal was released by the agent, so none is left.
    expect(agent.toolkit.terminals?.list()).toEqual([]);
  });

  it("denies by policy: the file stays unchanged", async () => {
    const { dir, notes, prompt } = setup("deny");
    await using agent = await connectAgent({
      ...exampleAgent,
      permissions: { policies: [denyAll()] },
    });
    const session = await agent.newSession({ cwd: dir });
    expect((await session.prompt(prompt)).stopReason).toBe("end_turn");
    expect(readFileSync(notes, "utf8")).toBe("Shopping list\n- apples\n");
  });

  it("cancel answers a pending permission request cancelled and ends the turn cancelled", async () => {
    const { dir, notes, prompt } = setup("cancel");
    let asked!: () => void;
    const askedNow = new Promise<void>((resolve) => (asked = resolve));
    await using agent = await connectAgent({
      ...exampleAgent,
      permissions: {
        // An interactive prompt that never answers on its own: only the cancel ends it.
        prompt: (_request, { signal }) =>
          new Promise((resolve) => {
            asked();
            signal.addEventListener("abort", () => resolve(undefined));
          }),
      },
    });
    const session = await agent.newSession({ cwd: dir });
    const turn = session.prompt(prompt);
    await askedNow;
    expect(agent.toolkit.permissions.pendingRequests(session.sessionId)).toHaveLength(1);
    await session.cancel();
    expect((await turn).stopReason).toBe("cancelled");
    expect(agent.toolkit.permissions.pendingRequests(session.sessionId)).toHaveLength(0);
    expect(readFileSync(notes, "utf8")).toBe("Shopping list\n- apples\n");
  });

  it("reports a clear error when the agent command does not exist", async () => {
    await expect(connectAgent({ command: "/no/such/agent-binary" })).rejects.toMatchObject({
      name: "AgentStartupError",
      code: "command_not_found",
    });
  });
});

/**
 * A raw agent process (newline-delimited JSON on its stdio). `mode` decides its session
 * behaviour: `options` (config options that `set_config_option` changes, and an update
 * sent before the `session/new` answer), `silent` (never answers `session/new`), `login`
 * (`-32000` until `authenticate`).
 */
function rawAgent(mode: "options" | "silent" | "login"): { command: string; args: string[] } {
  const file = join(temp, `raw-agent-${mode}.mjs`);
  writeFileSync(
    file,
    `import { createInterface } from "node:readline";
const mode = ${JSON.stringify(mode)};
let loggedIn = false;
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\\n");
const option = (value) => [{ type: "select", id: "model", name: "Model", category: "model",
  currentValue: value, options: [{ value: "fast", name: "Fast" }, { value: "deep", name: "Deep" }] }];
for await (const line of createInterface({ input: process.stdin })) {
  const m = JSON.parse(line);
  if (m.method === "initialize") {
    send({ id: m.id, result: { protocolVersion: 1,
      authMethods: [{ id: "token", name: "Use a token" }] } });
  } else if (m.method === "authenticate") {
    loggedIn = true;
    send({ id: m.id, result: {} });
  } else if (m.method === "session/new") {
    if (mode === "silent") continue;
    if (mode === "login" && !loggedIn) {
      send({ id: m.id, error: { code: -32000, message: "Authentication required" } });
      continue;
    }
    send({ method: "session/update", params: { sessionId: "s1", update: {
      sessionUpdate: "available_commands_update",
      availableCommands: [{ name: "review", description: "Review" }] } } });
    send({ id: m.id, result: { sessionId: "s1", configOptions: option("fast") } });
  } else if (m.method === "session/set_config_option") {
    send({ id: m.id, result: { configOptions: option(m.params.value) } });
  } else if (m.id !== undefined) {
    send({ id: m.id, error: { code: -32601, message: "Method not found" } });
  }
}
`,
  );
  return { command: process.execPath, args: [file] };
}

describe("connectAgent sessions (a raw agent process)", () => {
  it("keeps the state in step with set_config_option and updates sent before session/new's answer", async () => {
    await using agent = await connectAgent(rawAgent("options"));
    const session = await agent.newSession({ cwd: temp });
    expect(session.state.availableCommands?.map((c) => c.name)).toEqual(["review"]);
    expect(session.state.configOptions?.[0]?.currentValue).toBe("fast");
    const response = await session.setConfigOption("model", "deep");
    expect(response.configOptions[0]?.currentValue).toBe("deep");
    expect(session.state.configOptions?.[0]?.currentValue).toBe("deep");
    await session.setModel("fast");
    expect(session.state.configOptions?.[0]?.currentValue).toBe("fast");
  });

  it("gives up on a session/new the agent never answers, after sessionSetupTimeoutMs", async () => {
    await using agent = await connectAgent({ ...rawAgent("silent"), sessionSetupTimeoutMs: 200 });
    const started = Date.now();
    await expect(agent.newSession({ cwd: temp })).rejects.toMatchObject({
      name: "ConnectionError",
      code: "timeout",
    });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("rejects with AuthRequiredError carrying the agent's methods, and retries after login", async () => {
    await using agent = await connectAgent(rawAgent("login"));
    const error = await agent.newSession({ cwd: temp }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthRequiredError);
    const auth = error as AuthRequiredError;
    expect(auth.method).toBe("session/new");
    expect(auth.authMethods.map((m) => m.id)).toEqual(["token"]);
    await agent.sessions.authenticate("token");
    await expect(auth.retry()).resolves.toMatchObject({ sessionId: "s1" });
    expect(agent.toolkit.sessions.get("s1")?.configOptions).toHaveLength(1);
  });
});

describe("ClientToolkit", () => {
  it("confines file access to the session's roots", async () => {
    const { dir } = setup("roots");
    writeFileSync(join(temp, "secret.txt"), "top secret");
    const pair = memoryStreamPair();
    const toolkit = new ClientToolkit();
    const agent = new ClientSideConnection(() => toolkit.client(), pair.client);
    let connection!: AgentSideConnection;
    new AgentSideConnection((c) => {
      connection = c;
      return {
        initialize: () => ({ protocolVersion: 1 }),
        newSession: () => ({ sessionId: "s1" }),
        authenticate: () => undefined,
        prompt: () => ({ stopReason: "end_turn" }),
        cancel: () => undefined,
      };
    }, pair.agent);
    await agent.initialize({ protocolVersion: 1, clientCapabilities: toolkit.capabilities });
    await toolkit.newSession(agent, { cwd: dir, mcpServers: [] });
    await connection.writeTextFile({ sessionId: "s1", path: join(dir, "ok.txt"), content: "fine" });
    expect(readFileSync(join(dir, "ok.txt"), "utf8")).toBe("fine");
    await expect(
      connection.readTextFile({ sessionId: "s1", path: join(temp, "secret.txt") }),
    ).rejects.toMatchObject({ code: -32602 });
    await expect(
      connection.readTextFile({ sessionId: "s1", path: join(dir, "..", "secret.txt") }),
    ).rejects.toMatchObject({ code: -32602 });
    agent.close();
    await toolkit.dispose();
  });

  it("advertises only what it serves and passes extra handlers through", async () => {
    const toolkit = new ClientToolkit({
      files: false,
      terminals: false,
      handlers: { createElicitation: () => ({ action: "decline" }) },
    });
    expect(toolkit.capabilities).toEqual({
      fs: { readTextFile: false, writeTextFile: false },
      terminal: false,
    });
    const client = toolkit.client();
    expect("readTextFile" in client).toBe(false);
    expect("createTerminal" in client).toBe(false);
    expect(
      await client.createElicitation?.({
        message: "m",
        mode: "url",
        sessionId: "s",
        elicitationId: "e",
        url: "https://x",
      }),
    ).toEqual({
      action: "decline",
    });
  });

  /** A toolkit on an in-memory pair with an agent whose prompt runs `terminal`. */
  async function terminalPair(
    dir: string,
    terminal: { command: string; cwd?: string },
    options: ConstructorParameters<typeof ClientToolkit>[0] = {},
  ) {
    const pair = memoryStreamPair();
    const toolkit = new ClientToolkit(options);
    const created: Promise<unknown>[] = [];
    const agentSide = new AgentSideConnection(
      (client) => ({
        initialize: () => ({ protocolVersion: PROTOCOL_VERSION }),
        newSession: () => ({ sessionId: "s" }),
        authenticate: () => undefined,
        cancel: () => undefined,
        prompt: async ({ sessionId }) => {
          const attempt = client.createTerminal({ sessionId, args: ["100"], ...terminal });
          created.push(
            attempt.then(
              ({ id }) => ({ terminalId: id }),
              (e: unknown) => e,
            ),
          );
          await attempt.catch(() => undefined);
          return { stopReason: "end_turn" as const };
        },
      }),
      pair.agent,
    );
    const clientSide = new ClientSideConnection(() => toolkit.client(), pair.client);
    await toolkit.newSession(clientSide, { cwd: dir, mcpServers: [] });
    await toolkit.prompt(clientSide, { sessionId: "s", prompt: [] });
    return { toolkit, agentSide, created: created[0] };
  }

  it("kills the agent's terminals when its connection closes", async () => {
    const { dir } = setup("closing");
    const { toolkit, agentSide } = await terminalPair(dir, { command: "sleep" });
    const pid = toolkit.terminals!.list("s")[0]?.pid;
    expect(pid).toBeGreaterThan(0);
    agentSide.close(); // the agent is gone
    await vi.waitFor(() => expect(() => process.kill(pid!, 0)).toThrow());
  });

  it("a closing connection kills only its own sessions' terminals; the others keep working", async () => {
    const { dir } = setup("two-connections");
    const toolkit = new ClientToolkit();
    const connect = async (sessionId: string) => {
      const pair = memoryStreamPair();
      const agentSide = new AgentSideConnection(
        (client) => ({
          initialize: () => ({ protocolVersion: PROTOCOL_VERSION }),
          newSession: () => ({ sessionId }),
          authenticate: () => undefined,
          cancel: () => undefined,
          prompt: async () => {
            await client.createTerminal({ sessionId, command: "sleep", args: ["100"] });
            return { stopReason: "end_turn" as const };
          },
        }),
        pair.agent,
      );
      const clientSide = new ClientSideConnection(() => toolkit.client(), pair.client);
      await toolkit.newSession(clientSide, { cwd: dir, mcpServers: [] });
      await toolkit.prompt(clientSide, { sessionId, prompt: [] });
      return { agentSide, clientSide };
    };
    const a = await connect("a");
    const b = await connect("b");
    const pidA = toolkit.terminals!.list("a")[0]?.pid;
    const pidB = toolkit.terminals!.list("b")[0]?.pid;
    expect(pidA).toBeGreaterThan(0);
    expect(pidB).toBeGreaterThan(0);
    a.agentSide.close();
    await vi.waitFor(() => expect(() => process.kill(pidA!, 0)).toThrow());
    expect(toolkit.terminals!.list("a")).toEqual([]);
    // b's terminal lives on, and b can still start terminals.
    expect(() => process.kill(pidB!, 0)).not.toThrow();
    await toolkit.prompt(b.clientSide, { sessionId: "b", prompt: [] });
    expect(toolkit.terminals!.list("b")).toHaveLength(2);
    await toolkit.dispose();
    expect(() => process.kill(pidB!, 0)).toThrow();
  });

  it("runs terminals only inside the session's roots", async () => {
    const { dir } = setup("terminal-cwd");
    const { toolkit, created } = await terminalPair(dir, { command: "sleep", cwd: "/" });
    expect(await created).toMatchObject({ code: -32602 });
    expect(toolkit.terminals!.list("s")).toEqual([]);
    await toolkit.dispose();
  });

  for (const files of [undefined, false] as const) {
    const label = files === false ? "with files: false" : "with the file handler";
    it(`confines a terminal's cwd to the session's roots ${label}`, async () => {
      const { dir } = setup("terminal-confine");
      const outside = mkdtempSync(join(temp, "outside-"));
      symlinkSync(outside, join(dir, "escape"));
      for (const cwd of [
        "/",
        outside,
        join(dir, ".."),
        join(dir, "escape"),
        join(dir, "escape/"),
      ]) {
        const { toolkit, created } = await terminalPair(dir, { command: "sleep", cwd }, { files });
        expect(await created, cwd).toMatchObject({
          code: -32602,
          data: { reason: "outside_roots" },
        });
        expect(toolkit.terminals!.list("s")).toEqual([]);
        await toolkit.dispose();
      }
    });

    it(`accepts a terminal cwd written as a directory (sub/, /.) ${label}`, async () => {
      const { dir } = setup("terminal-dir");
      mkdirSync(join(dir, "sub"));
      for (const [cwd, expected] of [
        [join(dir, "sub") + "/", join(dir, "sub")],
        [dir + "/.", dir],
        [join(dir, "sub", "."), join(dir, "sub")],
      ] as const) {
        const { toolkit, created } = await terminalPair(dir, { command: "sleep", cwd }, { files });
        expect((await created) as { terminalId?: unknown }, cwd).toHaveProperty("terminalId");
        expect(toolkit.terminals!.list("s").map((t) => t.cwd)).toEqual([expected]);
        await toolkit.dispose();
      }
    });
  }

  it("judges a link by where it leads too: a deny for .env catches src/config -> ../.env", async () => {
    const { dir } = setup("links");
    mkdirSync(join(dir, "src"));
    writeFileSync(join(dir, ".env"), "SECRET=1\n");
    symlinkSync("../.env", join(dir, "src", "config"));
    writeFileSync(join(dir, "src", "plain.ts"), "");
    const toolkit = new ClientToolkit({
      permissions: { policies: [permissionRules("deny edit .env\nallow edit src/**")] },
    });
    toolkit.trackSession("s", { cwd: dir });
    const ask = (file: string) =>
      toolkit.client().requestPermission({
        sessionId: "s",
        toolCall: { toolCallId: "t", kind: "edit", locations: [{ path: join(dir, file) }] },
        options: [
          { optionId: "yes", name: "Allow", kind: "allow_once" },
          { optionId: "no", name: "Reject", kind: "reject_once" },
        ],
      });
    expect(await ask("src/config")).toEqual({ outcome: { outcome: "selected", optionId: "no" } });
    expect(await ask("src/plain.ts")).toEqual({
      outcome: { outcome: "selected", optionId: "yes" },
    });
  });

  it("spells a link's target as the roots are spelled: a root that is a link, and the root /", async () => {
    const { dir } = setup("link-roots");
    mkdirSync(join(dir, "src"));
    writeFileSync(join(dir, ".env"), "SECRET=1\n");
    symlinkSync("../.env", join(dir, "src", "config"));
    const alias = join(temp, `alias-${Date.now()}`);
    symlinkSync(dir, alias);
    const seen: string[][] = [];
    const toolkit = new ClientToolkit({
      permissions: {
        policies: [
          (request) => {
            seen.push((request.toolCall.locations ?? []).map((l) => l.path));
            return undefined;
          },
        ],
      },
    });
    const ask = (sessionId: string, file: string) =>
      toolkit.client().requestPermission({
        sessionId,
        toolCall: { toolCallId: "t", kind: "edit", locations: [{ path: file }] },
        options: [{ optionId: "no", name: "Reject", kind: "reject_once" }],
      });
    toolkit.trackSession("aliased", { cwd: alias });
    await ask("aliased", join(alias, "src", "config"));
    toolkit.trackSession("everywhere", { cwd: "/" });
    await ask("everywhere", join(dir, "src", "config"));
    expect(seen).toEqual([
      [join(alias, "src", "config"), join(alias, ".env")],
      [join(dir, "src", "config"), join(realpathSync(dir), ".env")],
    ]);
  });

  it("dispose kills running terminals", async () => {
    const { dir } = setup("terminals");
    const toolkit = new ClientToolkit();
    toolkit.trackSession("s", { cwd: dir });
    const terminals = toolkit.terminals!;
    const { terminalId } = await terminals.createTerminal({
      sessionId: "s",
      command: "sleep",
      args: ["100"],
    });
    const pid = terminals.list("s")[0]?.pid;
    expect(pid).toBeGreaterThan(0);
    await toolkit.dispose();
    expect(() => process.kill(pid!, 0)).toThrow();
    expect(terminalId).toMatch(/./);
  });
});
