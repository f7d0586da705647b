/**
 * A tracing tee: a proxy that forwards everything and writes what crossed it to a file in
 * the format of `acp-kit trace`, so that `acp-kit trace view FILE` shows it. Requests and
 * answers are numbered in the file by the tee itself (each hop of a chain has its own
 * ids); MCP servers' `env` and `headers` values are never written.
 *
 *   acp-kit conductor agent "node --import tsx examples/proxies/tracing-tee.ts --out t.ndjson" "my-agent"
 *   node --import tsx examples/proxies/tracing-tee.ts --out t.ndjson -- my-agent   (standalone)
 */
import { openSync, writeSync } from "node:fs";
import { runProxy } from "acp-kit/node";
import { defineProxy, redactSecrets } from "acp-kit/proxy";

const at = process.argv.indexOf("--out");
const out = at < 0 ? undefined : process.argv[at + 1];
if (out === undefined) {
  console.error("usage: tracing-tee.ts --out FILE [-- <agent command...>]");
  process.exit(2);
}
const fd = openSync(out, "w", 0o600);
const start = performance.now();
const record = (fields: Record<string, unknown>): void => {
  const t = Math.round((performance.now() - start) * 1000) / 1000;
  writeSync(fd, `${JSON.stringify({ t, at: new Date().toISOString(), ...fields })}\n`);
};
record({
  type: "header",
  format: "acp-kit-trace",
  version: 1,
  t: 0,
  command: "tracing-tee",
  args: process.argv.slice(2),
  cwd: process.cwd(),
  pid: null,
  proxyPid: process.pid,
  maxLineBytes: 0,
  recordStderr: false,
});

type Direction = "client→agent" | "agent→client";
let nextId = 0;
const message = (dir: Direction, msg: Record<string, unknown>): void =>
  record({ dir, msg: redactSecrets({ jsonrpc: "2.0", ...msg }) });

/** A request one way and its answer (or error) the other, under one id of the tee's own. */
async function traced(
  dir: Direction,
  method: string,
  params: unknown,
  forward: () => Promise<unknown>,
): Promise<unknown> {
  const id = nextId++;
  const back: Direction = dir === "client→agent" ? "agent→client" : "client→agent";
  message(dir, { id, method, params });
  try {
    const result = await forward();
    message(back, { id, result });
    return result;
  } catch (error) {
    const {
      code = -32603,
      message: text = String(error),
      data,
    } = error as {
      code?: number;
      message?: string;
      data?: unknown;
    };
    message(back, { id, error: { code, message: text, ...(data === undefined ? {} : { data }) } });
    throw error;
  }
}

await runProxy(
  defineProxy()
    .onRequestFromClient("*", ({ method, params, forward }) =>
      traced("client→agent", method, params, () => forward()),
    )
    .onRequestFromAgent("*", ({ method, params, forward }) =>
      traced("agent→client", method, params, () => forward()),
    )
    .onNotificationFromClient("*", ({ method, params, forward }) => {
      message("client→agent", { method, params });
      return forward();
    })
    .onNotificationFromAgent("*", ({ method, params, forward }) => {
      message("agent→client", { method, params });
      return forward();
    }),
);
record({ type: "exit", code: 0, signal: null, stats: {} });
