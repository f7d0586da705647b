import { describe, expect, it } from "vitest";
import type { Stream } from "../base/messages.js";
import { commandComponent } from "../node/proxy/command-component.js";
import { quoteCommandLine, splitCommandLine } from "../node/proxy/command-line.js";
import { initializeDialect, proxyInitialize, unwrap, withoutProxyFlag, wrap } from "./dialect.js";
import { REDACTED, redactSecrets } from "./redact.js";

describe("dialects", () => {
  it("initialize a proxy in each dialect and recognise it", () => {
    expect(proxyInitialize("rust", { a: 1 })).toEqual({
      method: "_proxy/initialize",
      params: { a: 1 },
    });
    expect(proxyInitialize("rfd", { a: 1 })).toEqual({
      method: "proxy/initialize",
      params: { a: 1 },
    });
    expect(proxyInitialize("thinkwell", { a: 1, _meta: { k: 2 } })).toEqual({
      method: "initialize",
      params: { a: 1, _meta: { k: 2, proxy: true } },
    });
    expect(initializeDialect("_proxy/initialize", {})).toBe("rust");
    expect(initializeDialect("proxy/initialize", {})).toBe("rfd");
    expect(initializeDialect("initialize", { _meta: { proxy: true } })).toBe("thinkwell");
    expect(initializeDialect("initialize", { _meta: { proxy: "yes" } })).toBeUndefined();
    expect(initializeDialect("initialize", {})).toBeUndefined();
  });

  it("wrap and unwrap envelopes of every dialect; the inner _meta stays inside", () => {
    const params = { sessionId: "s", _meta: { trace: 1 } };
    expect(wrap("rust", "request", "session/prompt", params)).toEqual({
      method: "_proxy/successor",
      params: { method: "session/prompt", params },
    });
    expect(wrap("thinkwell", "notification", "session/update", params).method).toBe(
      "_proxy/successor/notification",
    );
    for (const method of ["_proxy/successor", "proxy/successor", "_proxy/successor/request"]) {
      expect(unwrap(method, { method: "x/y", params })).toMatchObject({ method: "x/y", params });
    }
    expect(unwrap("session/prompt", {})).toBeUndefined();
    expect(() => unwrap("_proxy/successor", { params })).toThrow(TypeError);
  });

  it("drops only thinkwell's flag", () => {
    expect(withoutProxyFlag({ a: 1, _meta: { proxy: true } })).toEqual({ a: 1 });
    expect(withoutProxyFlag({ _meta: { proxy: true, k: 1 } })).toEqual({ _meta: { k: 1 } });
    const untouched = { _meta: { k: 1 } };
    expect(withoutProxyFlag(untouched)).toBe(untouched);
  });
});

describe("command lines", () => {
  it("split as a shell would, without expanding anything", () => {
    expect(splitCommandLine(`node "my proxy.js" --name 'a b' x\\ y "\\$HOME" ~ *`)).toEqual([
      "node",
      "my proxy.js",
      "--name",
      "a b",
      "x y",
      "$HOME",
      "~",
      "*",
    ]);
    expect(splitCommandLine(`a ''  "" b`)).toEqual(["a", "", "", "b"]);
    expect(() => splitCommandLine(`a "b`)).toThrow(SyntaxError);
    expect(() => splitCommandLine(`a 'b`)).toThrow(SyntaxError);
    expect(() => splitCommandLine(`a \\`)).toThrow(SyntaxError);
  });

  it("quote words so that they split back the same", () => {
    const words = ["node", "my proxy.js", "it's", "", "$HOME", 'a"b', "ok-1/x.js"];
    expect(splitCommandLine(quoteCommandLine(words))).toEqual(words);
    expect(quoteCommandLine(["node", "a.js"])).toBe("node a.js");
  });
});

describe("redactSecrets", () => {
  it("hides MCP env and header values, in a message or inside an envelope", () => {
    const servers = [
      { name: "a", command: "x", args: [], env: [{ name: "KEY", value: "secret" }] },
      {
        type: "http",
        name: "b",
        url: "u",
        headers: [{ name: "Authorization", value: "Bearer s" }],
      },
    ];
    const message = {
      jsonrpc: "2.0",
      id: 1,
      method: "session/new",
      params: { cwd: "/", mcpServers: servers },
    };
    const redacted = JSON.stringify(redactSecrets(message));
    expect(redacted).not.toContain("secret");
    expect(redacted).not.toContain("Bearer");
    expect(redacted).toContain(REDACTED);
    expect(message.params.mcpServers[0]?.env?.[0]?.value).toBe("secret"); // not changed
    const envelope = {
      jsonrpc: "2.0",
      id: 2,
      method: "_proxy/successor",
      params: { method: "session/new", params: { mcpServers: servers } },
    };
    expect(JSON.stringify(redactSecrets(envelope))).not.toContain("secret");
    const plain = { jsonrpc: "2.0", method: "session/update", params: { sessionId: "s" } };
    expect(redactSecrets(plain)).toBe(plain);
  });
});

describe("commandComponent", () => {
  it("hands a line that is not JSON to onStdout, never answering it", async () => {
    const lines: string[] = [];
    // Prints a login URL, then echoes what it reads to stderr: a parse-error answer would
    // show up there.
    const script =
      "console.log('visit https://example.test/login');" +
      "process.stdin.on('data', (d) => process.stderr.write('GOT ' + d));" +
      "setTimeout(() => process.exit(0), 300);";
    const started = await commandComponent(
      { command: process.execPath, args: ["-e", script] },
      { onStdout: (line) => lines.push(line), stderr: "ignore" },
    ).start();
    const reader = (started.stream as Stream).readable.getReader();
    const read = await reader.read();
    expect(read.done).toBe(true);
    expect(await started.ended).toBe("exited with code 0");
    expect(lines).toEqual(["visit https://example.test/login"]);
    await started.close();
  });
});
