/**
 * A TCP proxy on 127.0.0.1 for the client's tests: it forwards bytes both ways, and on
 * demand cuts every connection through it, stalls them (bytes held back: a dead peer
 * that keeps its socket open), delays each chunk, or refuses new connections (an outage:
 * each one is reset as it comes, and counted).
 */
import { createConnection, createServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

/** A running proxy. */
export interface TcpProxy {
  /** The proxy's port (connect here instead of `upstreamPort`). */
  readonly port: number;
  /** Connections made through it so far. */
  readonly accepted: number;
  /** Connections reset on arrival while refusing. */
  readonly refused: number;
  /** Destroys every open connection (both sides), as a network cut would. */
  cut(): number;
  /** While on, no byte is forwarded in either direction and the sockets stay open. */
  stall(on: boolean): void;
  /**
   * Resets the next `count` new connections as they come (counted in `refused`): an outage
   * that ends after that many tries (`Infinity`: until called again with 0).
   */
  refuse(count: number): void;
  /** Delay added to each forwarded chunk, in milliseconds. */
  delayMs: number;
  close(): Promise<void>;
}

/** Starts a proxy to `127.0.0.1:upstreamPort`. */
export async function startTcpProxy(upstreamPort: number): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>();
  let stalled = false;
  let refusing = 0;
  let accepted = 0;
  let refused = 0;
  const state = { delayMs: 0 };
  const forward = (from: Socket, to: Socket): void => {
    // Reads only as fast as the other side takes the bytes, as a network does (its buffers
    // are bounded): what is in flight at a cut is what the sockets hold, not a backlog here.
    const write = (chunk: Buffer): void => {
      if (to.destroyed) return;
      if (!to.write(chunk)) {
        from.pause();
        to.once("drain", () => from.resume());
      }
    };
    from.on("data", (chunk: Buffer) => {
      if (stalled) return; // swallowed: the peer looks alive but says nothing
      if (state.delayMs > 0) {
        from.pause();
        setTimeout(() => {
          from.resume();
          write(chunk);
        }, state.delayMs);
      } else {
        write(chunk);
      }
    });
  };
  const server = createServer((client) => {
    if (refusing > 0) {
      refusing--;
      refused++;
      client.on("error", () => undefined);
      client.resetAndDestroy();
      return;
    }
    accepted++;
    const upstream = createConnection({ host: "127.0.0.1", port: upstreamPort });
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const end = (): void => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of pair) {
      socket.on("error", end);
      socket.on("close", end);
    }
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    get accepted() {
      return accepted;
    },
    get refused() {
      return refused;
    },
    cut() {
      const n = pairs.size;
      for (const [a, b] of [...pairs]) {
        a.destroy();
        b.destroy();
      }
      pairs.clear();
      return n;
    },
    stall(on) {
      stalled = on;
    },
    refuse(count) {
      refusing = count;
    },
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(ms: number) {
      state.delayMs = ms;
    },
    close: async () => {
      for (const [a, b] of pairs) {
        a.destroy();
        b.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
