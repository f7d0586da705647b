/**
 * Next-edit suggestions (`nes/*`) and document notifications (`document/*`) against the
 * official SDK 2.4.0's `experimental/nes` entry, in both directions:
 *
 * (a) acp-kit's `AgentSideConnection` (an agent implementing the classic `unstable_*`
 *     names) serving the official NES `client()`;
 * (b) the official NES `agent()` serving acp-kit's `ClientSideConnection`.
 *
 * Each side frames its end of two identity byte pipes with its own `ndJsonStream`. The
 * official side parses NES params with its zod snapshot, ours with the validators
 * generated from the classic schema files, so a shape either side gets wrong fails here.
 */
import {
  agent as officialNesAgent,
  client as officialNesClient,
  ndJsonStream as theirNdJsonStream,
  RequestError as TheirRequestError,
  type AgentConnection,
  type ClientConnection,
} from "@agentclientprotocol/sdk/experimental/nes";
import { afterEach, describe, expect, it } from "vitest";
import {
  AgentSideConnection,
  ClientSideConnection,
  ConnectionError,
  ndJsonStream,
  RequestError,
  type AcceptNesNotification,
  type Agent,
  type DidChangeDocumentNotification,
  type DidCloseDocumentNotification,
  type DidFocusDocumentNotification,
  type DidOpenDocumentNotification,
  type DidSaveDocumentNotification,
  type InitializeRequest,
  type InitializeResponse,
  type RejectNesNotification,
  type StartNesRequest,
  type SuggestNesRequest,
  type SuggestNesResponse,
} from "../../packages/acp-kit/src/index.js";
import { caught, interopWire, until, type InteropWire } from "../support/interop-wire.js";

const SESSION = "nes-1";
const URI = "file:///work/src/main.ts";

const START: StartNesRequest = {
  workspaceUri: "file:///work",
  workspaceFolders: [{ uri: "file:///work", name: "work" }],
  repository: { name: "work", owner: "acp", remoteUrl: "https://example.invalid/acp/work.git" },
};

const SUGGEST: SuggestNesRequest = {
  sessionId: SESSION,
  uri: URI,
  version: 3,
  position: { line: 4, character: 2 },
  selection: { start: { line: 4, character: 0 }, end: { line: 4, character: 2 } },
  triggerKind: "manual",
  context: {
    recentFiles: [
      { uri: "file:///work/src/util.ts", languageId: "typescript", text: "export {}\n" },
    ],
    editHistory: [{ uri: URI, diff: "@@ -1 +1 @@\n-a\n+b\n" }],
    diagnostics: [
      {
        uri: URI,
        range: { start: { line: 4, character: 0 }, end: { line: 4, character: 9 } },
        severity: "error",
        message: "Cannot find name 'fo'. Did you mean 'foo'? ✅",
      },
    ],
  },
};

/** One suggestion of every kind, with text that is not plain ASCII. */
const SUGGESTIONS: SuggestNesResponse = {
  suggestions: [
    {
      kind: "edit",
      id: "s-edit",
      uri: URI,
      edits: [
        {
          range: { start: { line: 4, character: 0 }, end: { line: 4, character: 2 } },
          newText: 'foo("ünï")',
        },
      ],
      cursorPosition: { line: 4, character: 9 },
    },
    { kind: "jump", id: "s-jump", uri: URI, position: { line: 10, character: 0 } },
    {
      kind: "rename",
      id: "s-rename",
      uri: URI,
      position: { line: 2, character: 6 },
      newName: "bar",
    },
    {
      kind: "searchAndReplace",
      id: "s-sr",
      uri: URI,
      search: "fo\\b",
      replace: "foo",
      isRegex: true,
    },
  ],
};

const OPEN: DidOpenDocumentNotification = {
  sessionId: SESSION,
  uri: URI,
  languageId: "typescript",
  version: 1,
  text: "const fo = 1;\n",
};
const CHANGE: DidChangeDocumentNotification = {
  sessionId: SESSION,
  uri: URI,
  version: 2,
  contentChanges: [
    { range: { start: { line: 0, character: 6 }, end: { line: 0, character: 8 } }, text: "foo" },
    { text: "const foo = 1;\n" },
  ],
};
const SAVE: DidSaveDocumentNotification = { sessionId: SESSION, uri: URI };
const FOCUS: DidFocusDocumentNotification = {
  sessionId: SESSION,
  uri: URI,
  version: 2,
  position: { line: 0, character: 3 },
  visibleRange: { start: { line: 0, character: 0 }, end: { line: 40, character: 0 } },
};
const CLOSE_DOC: DidCloseDocumentNotification = { sessionId: SESSION, uri: URI };
const ACCEPT: AcceptNesNotification = { sessionId: SESSION, id: "s-edit" };
const REJECT: RejectNesNotification = { sessionId: SESSION, id: "s-jump", reason: "ignored" };

const CLIENT_NES_CAPABILITIES = {
  nes: { jump: {}, rename: {}, searchAndReplace: {} },
  positionEncodings: ["utf-16" as const],
};
const AGENT_NES_CAPABILITIES = {
  nes: {
    events: { document: { didOpen: {}, didChange: { syncKind: "incremental" as const } } },
    context: { recentFiles: { maxCount: 5 }, diagnostics: {} },
  },
  positionEncoding: "utf-16" as const,
};

/** Everything an NES agent saw, in order. */
type Seen = [string, unknown][];

let wire: InteropWire;
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe("(a) acp-kit agent with the classic unstable_* NES names ⇄ official 2.4.0 NES client()", () => {
  function setUp(): { seen: Seen; connection: ClientConnection } {
    wire = interopWire();
    const seen: Seen = [];
    const record =
      (name: string) =>
      (params: unknown): void => {
        seen.push([name, params]);
      };
    const agent: Agent = {
      initialize: (params: InitializeRequest) => {
        seen.push(["initialize", params]);
        return { protocolVersion: 1, agentCapabilities: AGENT_NES_CAPABILITIES };
      },
      newSession: () => ({ sessionId: "s" }),
      authenticate: () => undefined,
      prompt: () => ({ stopReason: "end_turn" }),
      cancel: () => undefined,
      unstable_startNes: (params) => {
        seen.push(["startNes", params]);
        return { sessionId: SESSION };
      },
      unstable_suggestNes: (params) => {
        seen.push(["suggestNes", params]);
        return SUGGESTIONS;
      },
      unstable_closeNes: (params) => {
        seen.push(["closeNes", params]);
      },
      unstable_acceptNes: record("acceptNes"),
      unstable_rejectNes: record("rejectNes"),
      unstable_didOpenDocument: record("didOpen"),
      unstable_didChangeDocument: record("didChange"),
      unstable_didCloseDocument: record("didClose"),
      unstable_didSaveDocument: record("didSave"),
      unstable_didFocusDocument: record("didFocus"),
    };
    const ours = new AgentSideConnection(
      () => agent,
      ndJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable),
    );
    const connection = officialNesClient({ name: "official-nes-client" })
      .onNotification("session/update", () => undefined)
      .onRequest("session/request_permission", () => ({ outcome: { outcome: "cancelled" } }))
      .connect(theirNdJsonStream(wire.clientToAgent.writable, wire.agentToClient.readable));
    cleanups.push(() => {
      ours.close();
      connection.close();
    });
    return { seen, connection };
  }

  it("initialize carries the NES capabilities both ways", async () => {
    const { seen, connection } = setUp();
    const response = await connection.agent.request<InitializeResponse>("initialize", {
      protocolVersion: 1,
      clientCapabilities: CLIENT_NES_CAPABILITIES,
    });
    expect(response.agentCapabilities).toMatchObject(AGENT_NES_CAPABILITIES);
    expect(seen[0]?.[1]).toMatchObject({ clientCapabilities: CLIENT_NES_CAPABILITIES });
  });

  it("nes/start, nes/suggest (every suggestion kind), nes/accept, nes/reject, nes/close", async () => {
    const { seen, connection } = setUp();
    const { agent } = connection;
    await expect(agent.request("nes/start", START)).resolves.toEqual({ sessionId: SESSION });
    await expect(agent.request("nes/suggest", SUGGEST)).resolves.toEqual(SUGGESTIONS);
    await agent.notify("nes/accept", ACCEPT);
    await agent.notify("nes/reject", REJECT);
    await expect(agent.request("nes/close", { sessionId: SESSION })).resolves.toEqual({});
    expect(seen).toEqual([
      ["startNes", START],
      ["suggestNes", SUGGEST],
      ["acceptNes", ACCEPT],
      ["rejectNes", REJECT],
      ["closeNes", { sessionId: SESSION }],
    ]);
    const methods = wire.clientToAgentTap.messages.map((m) => m.method);
    expect(methods).toEqual(["nes/start", "nes/suggest", "nes/accept", "nes/reject", "nes/close"]);
  });

  it("document/didOpen, didChange, didSave, didFocus, didClose arrive in order", async () => {
    const { seen, connection } = setUp();
    const { agent } = connection;
    await agent.notify("document/didOpen", OPEN);
    await agent.notify("document/didChange", CHANGE);
    await agent.notify("document/didSave", SAVE);
    await agent.notify("document/didFocus", FOCUS);
    await agent.notify("document/didClose", CLOSE_DOC);
    expect(await until(() => seen.length === 5)).toBe(true);
    expect(seen).toEqual([
      ["didOpen", OPEN],
      ["didChange", CHANGE],
      ["didSave", SAVE],
      ["didFocus", FOCUS],
      ["didClose", CLOSE_DOC],
    ]);
  });

  it("invalid NES params from the official client answer -32602; invalid notifications are dropped", async () => {
    const { seen, connection } = setUp();
    const { agent } = connection;
    const bad = await caught(
      agent.request("nes/suggest", { ...SUGGEST, position: { line: -1, character: 0 } }),
    );
    expect(bad).toBeInstanceOf(TheirRequestError);
    expect(bad).toMatchObject({ code: -32602 });
    const badKind = await caught(
      agent.request("nes/suggest", { ...SUGGEST, triggerKind: "sometimes" }),
    );
    expect(badKind).toMatchObject({ code: -32602 });
    await agent.notify("document/didOpen", { ...OPEN, version: "one" });
    await agent.notify("document/didSave", SAVE);
    expect(await until(() => seen.length === 1)).toBe(true);
    expect(seen).toEqual([["didSave", SAVE]]);
  });
});

describe("(b) official 2.4.0 NES agent() ⇄ acp-kit ClientSideConnection", () => {
  function setUp(suggestions: unknown = SUGGESTIONS): {
    seen: Seen;
    ours: ClientSideConnection;
    theirs: AgentConnection;
  } {
    wire = interopWire();
    const seen: Seen = [];
    const theirs = officialNesAgent({ name: "official-nes-agent" })
      .onRequest("initialize", (ctx) => {
        seen.push(["initialize", ctx.params]);
        return { protocolVersion: 1, agentCapabilities: AGENT_NES_CAPABILITIES };
      })
      .onRequest("nes/start", (ctx) => {
        seen.push(["startNes", ctx.params]);
        return { sessionId: SESSION };
      })
      .onRequest("nes/suggest", (ctx) => {
        seen.push(["suggestNes", ctx.params]);
        return suggestions as SuggestNesResponse;
      })
      .onRequest("nes/close", (ctx) => {
        seen.push(["closeNes", ctx.params]);
      })
      .onNotification("nes/accept", (ctx) => void seen.push(["acceptNes", ctx.params]))
      .onNotification("nes/reject", (ctx) => void seen.push(["rejectNes", ctx.params]))
      .onNotification("document/didOpen", (ctx) => void seen.push(["didOpen", ctx.params]))
      .onNotification("document/didChange", (ctx) => void seen.push(["didChange", ctx.params]))
      .onNotification("document/didClose", (ctx) => void seen.push(["didClose", ctx.params]))
      .onNotification("document/didSave", (ctx) => void seen.push(["didSave", ctx.params]))
      .onNotification("document/didFocus", (ctx) => void seen.push(["didFocus", ctx.params]))
      .connect(theirNdJsonStream(wire.agentToClient.writable, wire.clientToAgent.readable));
    const ours = new ClientSideConnection(
      () => ({
        requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
        sessionUpdate: () => undefined,
      }),
      ndJsonStream(wire.clientToAgent.writable, wire.agentToClient.readable),
    );
    cleanups.push(() => {
      ours.close();
      theirs.close();
    });
    return { seen, ours, theirs };
  }

  it("initialize: our NES client capabilities reach the official agent; its NES capabilities come back", async () => {
    const { seen, ours } = setUp();
    const response = await ours.initialize({
      protocolVersion: 1,
      clientCapabilities: CLIENT_NES_CAPABILITIES,
    });
    expect(response.agentCapabilities).toMatchObject(AGENT_NES_CAPABILITIES);
    expect(seen[0]?.[1]).toMatchObject({ clientCapabilities: CLIENT_NES_CAPABILITIES });
  });

  it("every NES and document call under its classic name reaches the official handler", async () => {
    const { seen, ours } = setUp();
    await expect(ours.unstable_startNes(START)).resolves.toEqual({ sessionId: SESSION });
    await expect(ours.unstable_suggestNes(SUGGEST)).resolves.toEqual(SUGGESTIONS);
    await ours.unstable_didOpenDocument(OPEN);
    await ours.unstable_didChangeDocument(CHANGE);
    await ours.unstable_didSaveDocument(SAVE);
    await ours.unstable_didFocusDocument(FOCUS);
    await ours.unstable_didCloseDocument(CLOSE_DOC);
    await ours.unstable_acceptNes(ACCEPT);
    await ours.unstable_rejectNes(REJECT);
    await expect(ours.unstable_closeNes({ sessionId: SESSION })).resolves.toEqual({});
    // The official agent may run notification handlers out of order: compare as a set.
    expect(await until(() => seen.length === 10)).toBe(true);
    const expected: Seen = [
      ["startNes", START],
      ["suggestNes", SUGGEST],
      ["didOpen", OPEN],
      ["didChange", CHANGE],
      ["didSave", SAVE],
      ["didFocus", FOCUS],
      ["didClose", CLOSE_DOC],
      ["acceptNes", ACCEPT],
      ["rejectNes", REJECT],
      ["closeNes", { sessionId: SESSION }],
    ];
    expect(seen).toHaveLength(expected.length);
    expect(seen).toEqual(expect.arrayContaining(expected));
    const methods = wire.clientToAgentTap.messages.map((m) => m.method);
    expect(methods).toEqual([
      "nes/start",
      "nes/suggest",
      "document/didOpen",
      "document/didChange",
      "document/didSave",
      "document/didFocus",
      "document/didClose",
      "nes/accept",
      "nes/reject",
      "nes/close",
    ]);
  });

  it("the official agent rejects our invalid NES params with -32602", async () => {
    const { ours } = setUp();
    const error = await caught(
      ours.unstable_suggestNes({ ...SUGGEST, version: "3" } as unknown as SuggestNesRequest),
    );
    expect(error).toBeInstanceOf(RequestError);
    expect(error).toMatchObject({ code: -32602 });
  });

  it("our client rejects an official agent's suggestion that breaks the schema", async () => {
    const { ours } = setUp({
      suggestions: [{ kind: "edit", id: "bad", uri: URI, edits: [{ newText: "x" }] }],
    });
    const error = await caught(ours.unstable_suggestNes(SUGGEST));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ code: "invalid_response" });
    expect((error as Error).message).toContain("nes/suggest");
  });
});
