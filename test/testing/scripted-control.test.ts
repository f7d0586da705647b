import { describe, expect, it } from "vitest";
import type { RequestPermissionResponse } from "../../packages/acp-kit/src/index.js";
import { demoScenario } from "../../packages/acp-kit/src/testing/scenario/demo.js";
import {
  agentText,
  chunk,
  CWD,
  harness,
  type HarnessOptions,
} from "./fixtures/scenario-harness.js";

async function session(scenario: object, options?: HarnessOptions) {
  const h = harness(scenario, options);
  await h.initialize();
  return { h, sessionId: await h.newSession() };
}

describe("prompt matching", () => {
  const scenario = {
    turns: [
      { match: { exact: "ping" }, steps: [{ text: "pong" }] },
      {
        match: { regex: "^fix (?<what>\\w+) in (\\w+)$", flags: "i" },
        steps: [{ text: "${match.what}/${match.2}/${match.0}" }],
      },
      { match: { command: "echo" }, steps: [{ text: "[${args}]" }] },
      { match: { contains: "weather" }, steps: [{ text: "sunny: ${prompt}" }] },
      { steps: [{ text: "first" }] },
      { steps: [{ text: "second" }, { stop: "max_tokens" }] },
    ],
  };

  it("matches exact text, substrings, regexes with groups and slash commands", async () => {
    const { h, sessionId } = await session(scenario);
    const answers: string[] = [];
    for (const prompt of [
      "ping",
      "Fix bug in parser",
      "/echo  a b ",
      "/echo",
      "how is the weather?",
    ]) {
      const start = h.updates().length;
      await h.prompt(sessionId, prompt);
      answers.push(agentText(h.updates().slice(start)));
    }
    expect(answers).toEqual([
      "pong",
      "bug/parser/Fix bug in parser",
      "[a b]",
      "[]",
      "sunny: how is the weather?",
    ]);
  });

  it("takes the turns without match in order, the last one repeating, per session", async () => {
    const { h, sessionId } = await session(scenario);
    const stops = [];
    for (let i = 0; i < 3; i++) stops.push(await h.prompt(sessionId, `prompt ${i}`));
    expect(stops).toEqual(["end_turn", "max_tokens", "max_tokens"]);
    expect(agentText(h.updates())).toBe("firstsecondsecond");
    const other = await h.newSession();
    await h.prompt(other, "again");
    expect(agentText(h.updates())).toBe("firstsecondsecondfirst");
  });

  it("numbers the turns of a session for ${turn}", async () => {
    const { h, sessionId } = await session({
      turns: [{ steps: [{ text: "t${turn}", messageId: "m-${turn}" }] }],
    });
    await h.prompt(sessionId, "a");
    await h.prompt(sessionId, "b");
    expect(h.updates()).toEqual([
      { ...chunk("t1"), messageId: "m-1" },
      { ...chunk("t2"), messageId: "m-2" },
    ]);
  });

  it("fails a prompt no turn answers", async () => {
    const { h, sessionId } = await session({ turns: [{ match: { exact: "a" }, steps: [] }] });
    await expect(h.prompt(sessionId, "b")).rejects.toMatchObject({
      code: -32603,
      message: "No scenario turn answers this prompt",
      data: { prompt: "b" },
    });
  });
});

describe("permission branching", () => {
  const permissionScenario = (options: unknown[] = ["allow_once", "reject_once"]) => ({
    turns: [
      {
        steps: [
          {
            toolCall: "Edit",
            toolCallId: "edit",
            kind: "edit",
            content: [{ diff: "a.txt", oldText: "a", newText: "b" }],
          },
          {
            permission: options,
            allow: [{ text: "allowed" }],
            reject: [{ text: "rejected" }],
            cancelled: [{ text: "cancelled branch" }],
          },
          { text: "after" },
        ],
      },
    ],
  });

  async function answer(response: RequestPermissionResponse, options?: unknown[]) {
    const { h, sessionId } = await session(permissionScenario(options), {
      permission: () => response,
    });
    const stop = await h.prompt(sessionId, "go");
    return { h, stop, text: agentText(h.updates()) };
  }

  it("asks with the tool call's state and runs the allow branch", async () => {
    const { h, stop, text } = await answer({
      outcome: { outcome: "selected", optionId: "allow_once" },
    });
    expect([stop, text]).toEqual(["end_turn", "allowedafter"]);
    const request = h.received.find(
      (m) => "method" in m && m.method === "session/request_permission",
    );
    expect(request).toEqual({
      jsonrpc: "2.0",
      id: 0,
      method: "session/request_permission",
      params: {
        sessionId: "session-1",
        toolCall: {
          toolCallId: "edit",
          title: "Edit",
          kind: "edit",
          status: "pending",
          content: [{ type: "diff", path: `${CWD}/a.txt`, newText: "b", oldText: "a" }],
        },
        options: [
          { optionId: "allow_once", name: "Allow", kind: "allow_once" },
          { optionId: "reject_once", name: "Reject", kind: "reject_once" },
        ],
      },
    });
  });

  it("runs the reject branch, and branches by the kind of a custom option", async () => {
    expect((await answer({ outcome: { outcome: "selected", optionId: "reject_once" } })).text).toBe(
      "rejectedafter",
    );
    const custom = [
      { optionId: "yes", name: "Yes, always", kind: "allow_always" },
      { optionId: "no", name: "Never", kind: "reject_always" },
    ];
    expect((await answer({ outcome: { outcome: "selected", optionId: "no" } }, custom)).text).toBe(
      "rejectedafter",
    );
    expect((await answer({ outcome: { outcome: "selected", optionId: "yes" } }, custom)).text).toBe(
      "allowedafter",
    );
  });

  it("runs the cancelled branch and ends cancelled, also without session/cancel", async () => {
    const { stop, text } = await answer({ outcome: { outcome: "cancelled" } });
    expect([stop, text]).toEqual(["cancelled", "cancelled branch"]);
  });

  it("ends cancelled when the client cancels the turn while asking", async () => {
    let answerPermission: (response: RequestPermissionResponse) => void = () => undefined;
    const { h, sessionId } = await session(permissionScenario(), {
      permission: () => new Promise((resolve) => (answerPermission = resolve)),
    });
    const prompt = h.prompt(sessionId, "go");
    await h.until((received) =>
      received.some((m) => "method" in m && m.method === "session/request_permission"),
    );
    await h.agent.cancel({ sessionId });
    answerPermission({ outcome: { outcome: "cancelled" } });
    expect(await prompt).toBe("cancelled");
    expect(agentText(h.updates())).toBe("cancelled branch");
  });
});

describe("permission about a tool call never reported (Codex)", () => {
  const scenario = {
    turns: [
      {
        steps: [
          {
            permission: ["allow_once", "reject_once"],
            call: { title: "rm -rf build", kind: "execute", rawInput: { command: "rm" } },
            allow: [{ toolUpdate: { status: "completed" } }],
            reject: [{ text: "left alone" }],
          },
        ],
      },
    ],
  };

  it("asks with the call's fields and a new id, and sends no tool_call", async () => {
    const { h, sessionId } = await session(scenario, {
      permission: () => ({ outcome: { outcome: "selected", optionId: "reject_once" } }),
    });
    expect(await h.prompt(sessionId, "go")).toBe("end_turn");
    const request = h.received.find(
      (m) => "method" in m && m.method === "session/request_permission",
    );
    expect(request).toMatchObject({
      params: {
        toolCall: {
          toolCallId: "call_1",
          title: "rm -rf build",
          kind: "execute",
          status: "pending",
          rawInput: { command: "rm" },
        },
      },
    });
    const kinds = h.updates().map((u) => u.sessionUpdate);
    expect(kinds).not.toContain("tool_call");
    expect(agentText(h.updates())).toBe("left alone");
  });

  it("is a tool call for the steps after it, in its branches too", async () => {
    const { h, sessionId } = await session(scenario, {
      permission: () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }),
    });
    await h.prompt(sessionId, "go");
    expect(h.updates()).toEqual([
      { sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "completed" },
    ]);
  });
});

describe("cancellation", () => {
  it("waitForCancel waits for session/cancel, runs its steps and ends cancelled", async () => {
    const { h, sessionId } = await session({
      turns: [
        {
          steps: [
            { text: "working" },
            { waitForCancel: [{ text: "stopping" }, { delay: 60_000 }] },
            { text: "never" },
          ],
        },
      ],
    });
    const prompt = h.prompt(sessionId, "go");
    await h.until(() => h.updates().length === 1);
    await h.agent.cancel({ sessionId });
    expect(await prompt).toBe("cancelled");
    expect(h.updates()).toEqual([chunk("working"), chunk("stopping")]);
  });

  it("stops streaming mid-text when cancelled, and the session takes the next prompt", async () => {
    const words = Array.from({ length: 20 }, (_, i) => `w${i}`).join(" ");
    const { h, sessionId } = await session(
      {
        turns: [
          { match: { exact: "long" }, steps: [{ text: words, chunk: "word", delayMs: 200 }] },
          { steps: [{ text: "ok" }] },
        ],
      },
      { delayScale: 1 },
    );
    const prompt = h.prompt(sessionId, "long");
    await h.until(() => h.updates().length >= 1);
    await h.agent.cancel({ sessionId });
    expect(await prompt).toBe("cancelled");
    const sent = h.updates().length;
    expect(sent).toBeGreaterThanOrEqual(1);
    expect(sent).toBeLessThan(20);
    expect(await h.prompt(sessionId, "next")).toBe("end_turn");
    expect(h.updates().at(-1)).toEqual(chunk("ok"));
  });
});

describe("determinism", () => {
  it("gives the same messages for the same scenario and client", async () => {
    const transcript = async () => {
      const { h, sessionId } = await session(demoScenario(), {
        files: { [`${CWD}/README.md`]: "# Project\n" },
      });
      await h.prompt(sessionId, "Show me around");
      await h.prompt(sessionId, "/explain README.md");
      await h.prompt(sessionId, "/explain missing.md");
      await h.agent.setSessionMode({ sessionId, modeId: "code" });
      return JSON.stringify(h.received);
    };
    const first = await transcript();
    expect(await transcript()).toBe(first);
    expect(first).not.toMatch(/\d{4}-\d\d-\d\dT/); // no wall-clock time
  });
});
