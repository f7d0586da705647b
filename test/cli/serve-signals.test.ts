/**
 * `serve` and its agents, with real processes: SIGHUP ends the agents (a dropped ssh
 * session must not leave them behind), SIGTERM stops the server even when a WebSocket
 * client ignores the close frame, and the agent does not get the server's token.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import {
  alive,
  hangingPrompt,
  killLeftovers,
  leftovers,
  remoteAgent,
  runCli,
  serve,
  stop,
} from "./remote-harness.js";

afterAll(killLeftovers);

describe("serve stops on signals", { timeout: 120_000 }, () => {
  it("SIGHUP: serve ends, and so do its agents", async () => {
    const served = await serve(["--no-resume"]);
    try {
      const turn = await hangingPrompt(served.url);
      leftovers.push(turn.pid);
      expect(alive(turn.pid)).toBe(true);
      served.child.kill("SIGHUP");
      await served.exited;
      // serve waits for its agents before it exits: this is not a race.
      expect(alive(turn.pid)).toBe(false);
      const result = await turn.done;
      expect(result.code).toBe(33);
    } finally {
      await stop(served);
    }
  });

  it("SIGTERM: serve exits although a WebSocket client ignores the close frame", async () => {
    const served = await serve();
    const { port } = new URL(served.url);
    const socket = connect(Number(port), "127.0.0.1");
    try {
      await new Promise((resolve) => socket.once("connect", resolve));
      socket.write(
        [
          "GET /acp HTTP/1.1",
          `Host: 127.0.0.1:${port}`,
          "Upgrade: websocket",
          "Connection: Upgrade",
          "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
          "Sec-WebSocket-Version: 13",
          "",
          "",
        ].join("\r\n"),
      );
      // A client frame is masked: the mask is all zeros here, so the payload goes as it is.
      const payload = Buffer.from(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: 1, clientCapabilities: {} },
        }),
      );
      expect(payload.length).toBeLessThan(126);
      socket.write(
        Buffer.concat([Buffer.from([0x81, 0x80 | payload.length, 0, 0, 0, 0]), payload]),
      );
      // Read until the agent's answer to initialize arrives; never answer anything.
      await new Promise<void>((resolve) => {
        let seen = "";
        socket.on("data", (chunk: Buffer) => {
          seen += chunk.toString("latin1");
          if (seen.includes("protocolVersion")) resolve();
        });
      });
      served.child.kill("SIGTERM");
      // Before: 30 s (ws's own close timeout). The bound is a safety net, well under that.
      const exit = await Promise.race([
        served.exited,
        new Promise((resolve) => setTimeout(() => resolve("still running"), 20_000)),
      ]);
      expect(exit).toBe(0);
    } finally {
      socket.destroy();
      await stop(served);
    }
  });
});

describe("serve stops: a WebSocket without initialize", { timeout: 60_000 }, () => {
  it("gets a close frame (1001), not a dropped socket", async () => {
    const served = await serve();
    try {
      const socket = new WebSocket(served.url.replace("http:", "ws:"));
      await new Promise((resolve, reject) => {
        socket.once("open", resolve);
        socket.once("error", reject);
      });
      const closed = new Promise<number>((resolve) => socket.once("close", resolve));
      served.child.kill("SIGTERM");
      // Before: no close frame for a socket with no connection; dropped after the grace (1006).
      expect(await closed).toBe(1001);
      expect(await served.exited).toBe(0);
    } finally {
      await stop(served);
    }
  });
});

describe("serve --token-env", { timeout: 60_000 }, () => {
  it("the agent does not get the token's variable", async () => {
    const env = { ACP_TEST_TOKEN: "s3cret-token" };
    const served = await serve(["--token-env", "ACP_TEST_TOKEN"], env);
    try {
      const result = await runCli(
        ["prompt", "--url", served.url, "--token-env", "ACP_TEST_TOKEN", "hello"],
        { env },
      );
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("ACP_TEST_TOKEN unset");
    } finally {
      await stop(served);
    }
  });

  it("a named agent still gets its own variables", async () => {
    const config = mkdtempSync(join(tmpdir(), "acp-kit-agents-"));
    try {
      mkdirSync(join(config, "acp-kit"));
      const [command, script] = remoteAgent;
      writeFileSync(
        join(config, "acp-kit", "agents.json"),
        JSON.stringify({
          agents: { fixture: { command, args: [script, "ACP_OWN"], env: { ACP_OWN: "mine" } } },
        }),
      );
      const env = { XDG_CONFIG_HOME: config, ACP_TEST_TOKEN: "s3cret-token" };
      const served = await serve(["--token-env", "ACP_TEST_TOKEN"], env, ["fixture"]);
      try {
        const result = await runCli(
          ["prompt", "--url", served.url, "--token-env", "ACP_TEST_TOKEN", "hello"],
          { env },
        );
        expect(result.code).toBe(0);
        expect(result.stdout).toContain("ACP_OWN set");
      } finally {
        await stop(served);
      }
    } finally {
      rmSync(config, { recursive: true, force: true });
    }
  });
});
