import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { mcpServersOf, refusedServersText, withoutRawMcpSecrets } from "./mcp-config.js";
import { TraceClock, TraceRecorder } from "./trace/trace-recorder.js";
import { TraceWriter } from "./trace/trace-writer.js";

describe("mcpServersOf", () => {
  it("reads the editors' formats: mcpServers, Zed's context_servers (old command form)", () => {
    expect(
      mcpServersOf(
        {
          mcpServers: {
            a: { command: "npx", args: ["x"], env: { K: "${env:SECRET}-${OTHER}" } },
            b: { url: "https://h/mcp", type: "streamable-http" },
            c: { url: "https://h/sse", type: "sse", headers: { X: "y" } },
          },
        },
        { SECRET: "s", OTHER: "o" },
      ),
    ).toEqual([
      { name: "a", command: "npx", args: ["x"], env: [{ name: "K", value: "s-o" }] },
      { type: "http", name: "b", url: "https://h/mcp", headers: [] },
      { type: "sse", name: "c", url: "https://h/sse", headers: [{ name: "X", value: "y" }] },
    ]);
    expect(
      mcpServersOf({ context_servers: { z: { command: { path: "/bin/z", args: ["-v"] } } } }),
    ).toEqual([{ name: "z", command: "/bin/z", args: ["-v"], env: [] }]);
  });

  it("names what is wrong, never a value", () => {
    expect(() => mcpServersOf({ mcpServers: { a: { command: "x", env: { K: 5 } } } })).toThrow(
      'server "a".env.K is not a string',
    );
    expect(() =>
      mcpServersOf({ mcpServers: { a: { command: "x", env: { K: "${NOPE}" } } } }, {}),
    ).toThrow('server "a".env.K names ${NOPE}, which is not set');
    expect(() => mcpServersOf({ mcpServers: { a: { url: "u", type: "ws" } } })).toThrow(
      'has type "ws"',
    );
    expect(() => mcpServersOf({ other: {} })).toThrow('no "mcpServers" object');
  });

  it("names the servers the agent does not take", () => {
    const servers = mcpServersOf({
      mcpServers: { s: { command: "x" }, h: { url: "u" }, e: { url: "u", type: "sse" } },
    });
    expect(refusedServersText([])).toBeUndefined();
    expect(refusedServersText(servers.slice(2))).toBe(
      "the agent does not take sse MCP servers (e): it does not list them in its mcpCapabilities.",
    );
  });
});

describe("a trace of a session/new with MCP servers", () => {
  /** Records `text` (as read, `truncated` when cut short) and returns the trace file's text. */
  async function record(text: string, truncated: boolean): Promise<string> {
    const dir = mkdtempSync(join(tmpdir(), "acp-kit-mcp-trace-"));
    try {
      const file = join(dir, "t.ndjson");
      const writer = new TraceWriter(file, {
        maxQueueChars: 1 << 22,
        warn: () => undefined,
        droppedRecord: () => "{}",
      });
      const recorder = new TraceRecorder(writer, new TraceClock());
      recorder.line("client→agent", { text, bytes: text.length, truncated });
      await writer.close(1000);
      return readFileSync(file, "utf8");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it("records the env and header values as ***", async () => {
    const message = {
      jsonrpc: "2.0",
      id: 1,
      method: "session/new",
      params: {
        cwd: "/p",
        mcpServers: [
          { name: "a", command: "x", args: [], env: [{ name: "TOKEN", value: "top-secret" }] },
          {
            type: "http",
            name: "b",
            url: "https://h",
            headers: [{ name: "Authorization", value: "Bearer hidden" }],
          },
        ],
      },
    };
    const recorded = await record(JSON.stringify(message), false);
    expect(recorded).not.toMatch(/top-secret|hidden/);
    const parsed = JSON.parse(recorded.trim()) as { msg: typeof message };
    expect(parsed.msg.params.mcpServers).toEqual([
      { name: "a", command: "x", args: [], env: [{ name: "TOKEN", value: "***" }] },
      {
        type: "http",
        name: "b",
        url: "https://h",
        headers: [{ name: "Authorization", value: "***" }],
      },
    ]);
  });

  const servers =
    '"mcpServers":[{"name":"a","command":"x","args":[],"env":[{"name":"TOKEN","value":"top-secret"}]},' +
    '{"type":"http","name":"b","url":"https://h","headers":[{"name":"Authorization","value":"Bearer hid\\"den"}]}]';

  it("hides them in a line recorded raw because it was cut short, even mid-value", async () => {
    const whole = `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/p",${servers}}}`;
    const cut = whole.slice(0, whole.indexOf("hid") + 5);
    const recorded = await record(cut, true);
    expect(recorded).not.toMatch(/top-secret|hid/);
    const line = JSON.parse(recorded.trim()) as { raw: string; truncated?: unknown };
    expect(line.raw).toContain('"name":"TOKEN","value":"***"');
    expect(line.raw.endsWith('"value":"***"')).toBe(true);
  });

  it("hides them in a line too deep to re-serialise", async () => {
    const deep = "[".repeat(20_000) + "]".repeat(20_000);
    const text = `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/p",${servers},"_meta":{"d":${deep}}}}`;
    const recorded = await record(text, false);
    expect(recorded).not.toMatch(/top-secret|hid\\"den/);
    expect(recorded).toContain('\\"value\\":\\"***\\"');
  });

  it("leaves raw lines that give no MCP servers alone, and hides a value cut after its backslash", () => {
    expect(withoutRawMcpSecrets('{"value":"kept"} not json')).toBe('{"value":"kept"} not json');
    expect(withoutRawMcpSecrets('{"mcpServers":[{"env":[{"name":"K","value":"ab\\')).toBe(
      '{"mcpServers":[{"env":[{"name":"K","value":"***"',
    );
  });
});
