/**
 * A peer's error in words: the message and what its data says, as agents really send them.
 */
import { describe, expect, it } from "vitest";
import { describePeerError, errorDataText } from "../../packages/acp-kit/src/jsonrpc/error-text.js";
import { ConnectionError, RequestError } from "../../packages/acp-kit/src/jsonrpc/errors.js";
import { describeFailure, ExitCodes } from "../../packages/cli/src/exit-codes.js";
import { AgentStartupError } from "../../packages/acp-kit/src/node/spawn/errors.js";

describe("describePeerError", () => {
  it("adds what data says under a generic message: a string, details, message", () => {
    expect(
      describePeerError({
        code: -32603,
        message: "Internal error",
        data: "CODEX_API_KEY is not set",
      }),
    ).toBe("Internal error: CODEX_API_KEY is not set (-32603)");
    expect(
      describePeerError({
        code: -32603,
        message: "Internal error",
        data: { details: "Claude Code process exited with code 1" },
      }),
    ).toBe("Internal error: Claude Code process exited with code 1 (-32603)");
    expect(
      describePeerError({
        code: -32603,
        message: "Internal error",
        data: { message: "stream disconnected before completion" },
      }),
    ).toBe("Internal error: stream disconnected before completion (-32603)");
  });

  it("does not repeat what the message already says, and shows other data as short JSON", () => {
    expect(
      describePeerError({
        code: -32000,
        message: "Gemini API key is missing",
        data: "Gemini API key is missing",
      }),
    ).toBe("Gemini API key is missing (-32000)");
    expect(describePeerError({ code: 1, message: "Boom", data: { retryAfter: 3 } })).toBe(
      'Boom: {"retryAfter":3} (1)',
    );
    const long = describePeerError({ code: 1, message: "Boom", data: { blob: "x".repeat(1000) } });
    expect(long.length).toBeLessThan(260);
    expect(describePeerError({ code: 1, message: "Boom", data: {} })).toBe("Boom (1)");
  });

  it("says invalid params in words: the fields at fault, ours, zod's and plain lists", () => {
    expect(
      describePeerError({
        code: -32602,
        message: "Invalid params",
        data: {
          method: "session/prompt",
          issues: [{ path: "/prompt/0/type", message: "must be one of text, image" }],
        },
      }),
    ).toBe(
      "The agent rejected the parameters of session/prompt: prompt.0.type: must be one of text, image (-32602 invalid params)",
    );
    expect(
      describePeerError({
        code: -32602,
        message: "Invalid params",
        data: {
          _errors: [],
          sessionId: { _errors: ["Required"] },
          cwd: { _errors: ["Expected string"] },
        },
      }),
    ).toBe(
      "The agent rejected the parameters: sessionId: Required; cwd: Expected string (-32602 invalid params)",
    );
    expect(
      describePeerError(
        {
          code: -32602,
          message: "Invalid params",
          data: [{ path: ["mcpServers"], message: "Required" }],
        },
        "the client",
      ),
    ).toBe("The client rejected the parameters: mcpServers: Required (-32602 invalid params)");
    expect(describePeerError({ code: -32602, message: "Invalid params" })).toBe(
      "The agent rejected the parameters (-32602 invalid params)",
    );
  });

  it("says nothing for data that holds nothing", () => {
    expect(errorDataText(undefined)).toBeUndefined();
    expect(errorDataText(null)).toBeUndefined();
    expect(errorDataText("  ")).toBeUndefined();
    expect(errorDataText([])).toBeUndefined();
  });

  it("reads data nested 100,000 levels deep without overflowing the stack", () => {
    // Built without recursion; JSON.stringify and a recursive walk overflow on each.
    let array: unknown = 1;
    let object: Record<string, unknown> = { end: 1 };
    let tree: Record<string, unknown> = { _errors: ["Required"] };
    for (let i = 0; i < 100_000; i++) {
      array = [array];
      object = { a: object };
      tree = { f: tree, _errors: [`e${i}`] };
    }
    const arrayText = errorDataText(array) ?? "";
    expect(arrayText).toBe(`${"[".repeat(299)}…`);
    expect(errorDataText({ deep: object })).toBe(`{"deep":${'{"a":'.repeat(38)}{…`);
    // Every issue counted, the first three named.
    expect(errorDataText(tree)).toBe("e99999; f: e99998; f.f: e99997; and 99998 more");
    const path = [[[[["x"]]]]] as unknown;
    expect(errorDataText([{ path: [path, "b"], message: "bad" }])).toBe('[[[[["x"]]]]].b: bad');
    let deepPath: unknown = "x";
    for (let i = 0; i < 100_000; i++) deepPath = [deepPath];
    expect(errorDataText([{ path: ["a", deepPath], message: "bad" }])).toBe(
      `a.${"[".repeat(39)}…: bad`,
    );
  });
});

describe("describeFailure", () => {
  it("gives each kind of failure its own exit code", () => {
    const cases: [unknown, number][] = [
      [
        new AgentStartupError("no such agent", {
          phase: "spawn",
          code: "command_not_found",
          command: "nope",
        }),
        ExitCodes.AGENT_START,
      ],
      [new RequestError(-32000, "Authentication required"), ExitCodes.AUTH_REQUIRED],
      [new RequestError(-32603, "Internal error", "offline"), ExitCodes.AGENT_ERROR],
      [new RequestError(-32800, "Request cancelled"), ExitCodes.CANCELLED],
      [new ConnectionError("invalid_response", "bad result"), ExitCodes.PROTOCOL_ERROR],
      [new ConnectionError("timeout", "no answer in 5000 ms"), ExitCodes.PROTOCOL_ERROR],
      [new ConnectionError("connection_closed", "closed"), ExitCodes.AGENT_CRASHED],
      [new Error("something else"), ExitCodes.FAILURE],
    ];
    for (const [error, code] of cases) expect(describeFailure(error).exitCode).toBe(code);
    expect(describeFailure(new RequestError(-32603, "Internal error", "offline")).message).toBe(
      "The agent reported an error: Internal error: offline (-32603)",
    );
  });
});
