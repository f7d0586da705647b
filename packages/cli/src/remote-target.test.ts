import { describe, expect, it } from "vitest";
import { ConnectionError, RequestError } from "acp-kit";
import { AgentExitError } from "acp-kit/node";
import { describeFailure, ExitCodes, REMOTE_FAILURE } from "./exit-codes.js";
import { redactUrl, remoteTarget } from "./remote-target.js";

describe("redactUrl", () => {
  it("hides credentials and every query value, keeps the rest", () => {
    expect(redactUrl(new URL("http://alice:pa55@example.com:8787/acp?token=abc&x=1#frag"))).toBe(
      "http://***@example.com:8787/acp?token=***&x=***",
    );
    expect(redactUrl(new URL("wss://host/acp"))).toBe("wss://host/acp");
  });

  it("the bridge's command line and label carry the redacted URL, its environment the real one", () => {
    const url = "http://alice:pa55@127.0.0.1:1/acp?token=abc";
    const target = remoteTarget({ url }, []);
    expect(target?.remote).toBe(true);
    expect(target?.label).toBe("http://***@127.0.0.1:1/acp?token=***");
    expect(target?.args.join(" ")).not.toMatch(/alice|pa55|abc/);
    expect(Object.values(target?.env ?? {})).toContain(url);
  });
});

describe("describeFailure for --url", () => {
  const bridgeExit = (code: number, line: string): ConnectionError =>
    new ConnectionError("connection_closed", "Connection closed", {
      cause: new AgentExitError({ code, signal: null }, [line]),
    });

  it("the bridge's exit 33 is the connection's failure, in the bridge's words", () => {
    const error = bridgeExit(33, "acp-kit: the connection to the remote agent at X failed: boom");
    expect(describeFailure(error, { remote: true })).toEqual({
      exitCode: ExitCodes.REMOTE_FAILED,
      message: "The connection to the remote agent at X failed: boom",
    });
    // A local agent exiting with 33 has crashed, whatever its code.
    expect(describeFailure(error).exitCode).toBe(ExitCodes.AGENT_CRASHED);
  });

  it("the bridge's exit 20 is a refused login", () => {
    const error = bridgeExit(20, "acp-kit: the server at X refused the credentials (HTTP 401)");
    expect(describeFailure(error, { remote: true }).exitCode).toBe(ExitCodes.AUTH_REQUIRED);
  });

  it("an answer the bridge made for a lost request: 33, or 20 for a 401; not the agent's error", () => {
    const lost = new RequestError(-32603, "the connection to the remote agent at X failed: cut", {
      [REMOTE_FAILURE]: { status: 502 },
    });
    expect(describeFailure(lost)).toEqual({
      exitCode: ExitCodes.REMOTE_FAILED,
      message: "The connection to the remote agent at X failed: cut",
    });
    const refused = new RequestError(-32603, "refused", { [REMOTE_FAILURE]: { status: 401 } });
    expect(describeFailure(refused).exitCode).toBe(ExitCodes.AUTH_REQUIRED);
    const agents = new RequestError(-32603, "Internal error", { reason: "TypeError" });
    expect(describeFailure(agents).exitCode).toBe(ExitCodes.AGENT_ERROR);
  });
});
