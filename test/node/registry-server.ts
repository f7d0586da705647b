/**
 * A small HTTP server on 127.0.0.1 for the registry tests: it serves files from a table
 * (the registry document, archives, npm packuments and tarballs), answers `If-None-Match`
 * with 304, and counts requests.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One served file. */
export interface Served {
  body: Uint8Array | string;
  type?: string;
  etag?: string;
  status?: number;
}

/** The running server. */
export interface TestServer {
  readonly url: string;
  readonly files: Map<string, Served>;
  readonly requests: { path: string; ifNoneMatch: string | undefined }[];
  close(): Promise<void>;
}

export async function startServer(): Promise<TestServer> {
  const files = new Map<string, Served>();
  const requests: TestServer["requests"] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    const ifNoneMatch = req.headers["if-none-match"];
    requests.push({ path, ifNoneMatch });
    const file = files.get(path);
    if (file === undefined) {
      res.writeHead(404).end("not found");
      return;
    }
    if (file.etag !== undefined && ifNoneMatch === file.etag) {
      res.writeHead(304, { etag: file.etag }).end();
      return;
    }
    const body = typeof file.body === "string" ? Buffer.from(file.body) : Buffer.from(file.body);
    res.writeHead(file.status ?? 200, {
      "content-type": file.type ?? "application/octet-stream",
      "content-length": body.length,
      ...(file.etag === undefined ? {} : { etag: file.etag }),
    });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    files,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sha256(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}
