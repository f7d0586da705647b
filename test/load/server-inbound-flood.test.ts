/**
 * A client floods an acp-kit server whose agent does not read (issue 16, item 10): 150
 * POSTs of 1 MiB. The server is a real child process (`fixtures/stalled-server.ts`) so its
 * memory is its own. Before, it took every message: +153 MiB of heap (+193 MiB RSS). Now
 * it holds `maxInboundBytesPerConnection` (16 MiB) and answers the rest 503 with
 * Retry-After: +19 MiB. Once the agent reads, everything that was taken reaches it, and
 * new messages are taken again.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach, expect, it } from "vitest";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const fixture = fileURLToPath(new URL("./fixtures/stalled-server.ts", import.meta.url));
const MiB = 1024 * 1024;
/** The budget (16 MiB) plus room for the server's own churn; taking everything is 150. */
const MAX_HEAP_GROWTH = 48 * MiB;

let child: ChildProcessWithoutNullStreams | undefined;
afterEach(() => {
  child?.kill();
  child = undefined;
});

it("150 POSTs of 1 MiB to an agent that does not read: the server holds 16 MiB and answers the rest 503", async () => {
  child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", fixture], { cwd: repoRoot });
  child.stderr.pipe(process.stderr);
  const lines: AsyncIterator<string> = createInterface({ input: child.stdout })[
    Symbol.asyncIterator
  ]();
  const nextLine = async (): Promise<string> => {
    const next = await lines.next();
    if (next.done === true) throw new Error("the server exited");
    return next.value;
  };
  const ask = async (command: string): Promise<number> => {
    child!.stdin.write(`${command}\n`);
    return Number((await nextLine()).split(" ")[1]);
  };
  const port = Number((await nextLine()).split(" ")[1]);
  const url = `http://127.0.0.1:${port}/acp`;
  const post = (body: unknown, id?: string): Promise<Response> =>
    fetch(url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        ...(id === undefined ? {} : { "Acp-Connection-Id": id }),
      },
      body: JSON.stringify(body),
    });
  const init = await post({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} });
  expect(init.status).toBe(200);
  const connectionId = init.headers.get("Acp-Connection-Id")!;
  await init.text();

  const before = await ask("mem");
  const pad = "x".repeat(MiB);
  const statuses: number[] = [];
  for (let round = 0; round < 15; round++) {
    await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const params = { n: round * 10 + i, pad };
        const response = await post({ jsonrpc: "2.0", method: "_test/pad", params }, connectionId);
        statuses.push(response.status);
        if (response.status === 503) expect(response.headers.get("Retry-After")).toBe("1");
        await response.text();
      }),
    );
  }
  const growth = (await ask("mem")) - before;
  const taken = statuses.filter((s) => s === 202).length;
  expect(growth).toBeLessThan(MAX_HEAP_GROWTH);
  expect(taken).toBe(15);
  expect(statuses.filter((s) => s === 503)).toHaveLength(135);

  // The agent reads: every message taken reaches it, and the connection takes more.
  expect(await ask(`read ${taken}`)).toBe(taken);
  const later = await post({ jsonrpc: "2.0", method: "_test/pad", params: { pad } }, connectionId);
  expect(later.status).toBe(202);
  expect(await ask(`read ${taken + 1}`)).toBe(taken + 1);
}, 60_000);
