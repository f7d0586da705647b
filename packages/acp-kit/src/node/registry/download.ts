/**
 * Downloading an archive to a file while hashing it, with time and size limits: a server
 * that stalls or sends without end costs a clear error, not a hung install.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { open, stat } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { isLoopbackHost } from "../../http/server/loopback.js";
import { RegistryError } from "./errors.js";
import type { RegistryProgressListener } from "./progress.js";

/** What was downloaded. */
export interface Download {
  /** Hex SHA-256 of the bytes. */
  readonly sha256: string;
  /** How many bytes. */
  readonly size: number;
}

/** Time and size limits of a download. */
export interface DownloadLimits {
  /** Milliseconds to wait for the server's answer (its headers). Default 30 000. */
  readonly connectTimeoutMs: number;
  /** Milliseconds the body may go without a byte. Default 30 000. */
  readonly idleTimeoutMs: number;
  /** The largest archive accepted, in bytes. Default 1 GiB. */
  readonly maxBytes: number;
}

/** The limits used when none are given. */
export const DEFAULT_DOWNLOAD_LIMITS: DownloadLimits = {
  connectTimeoutMs: 30_000,
  idleTimeoutMs: 30_000,
  maxBytes: 1024 ** 3,
};

/** Whether a URL may be fetched without a checksum: https, file, or http to this machine. */
export function isSecureSource(url: URL): boolean {
  return url.protocol !== "http:" || isLoopbackHost(url.hostname);
}

function tooLarge(url: string, maxBytes: number, what: string): RegistryError {
  return new RegistryError(
    "too_large",
    `The download from ${url} was refused: ${what} more than the limit of ${maxBytes} bytes. Nothing was installed.`,
  );
}

/** Runs `body` with a signal that aborts when `signal` does or a timer runs out. */
class Deadline {
  readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Why the timer fired, when it did. */
  expired: string | undefined;

  constructor(signal: AbortSignal | undefined) {
    if (signal?.aborted === true) this.controller.abort(signal.reason);
    else
      signal?.addEventListener("abort", () => this.controller.abort(signal.reason), { once: true });
  }

  /** Starts (or restarts) the timer. */
  arm(ms: number, why: string): void {
    this.disarm();
    if (!Number.isFinite(ms) || ms <= 0) return;
    this.timer = setTimeout(() => {
      this.expired = why;
      this.controller.abort(new Error(why));
    }, ms);
  }

  disarm(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/**
 * Downloads `url` (`https:`, `http:` or `file:`) into `file`, reporting progress.
 *
 * @param url - The archive's URL.
 * @param file - Where to write it.
 * @param agent - The agent's id, for progress and messages.
 * @param onProgress - Told as bytes arrive.
 * @param signal - Aborts the download.
 * @param limits - Time and size limits.
 * @param requireSecure - Refuse to end up on plain http to another host (after redirects).
 */
export async function download(
  url: string,
  file: string,
  agent: string,
  onProgress?: RegistryProgressListener,
  signal?: AbortSignal,
  limits: DownloadLimits = DEFAULT_DOWNLOAD_LIMITS,
  requireSecure = false,
): Promise<Download> {
  const hash = createHash("sha256");
  const out = await open(file, "w");
  const deadline = new Deadline(signal);
  let received = 0;
  try {
    if (url.startsWith("file:")) {
      const path = fileURLToPath(url);
      const size = (await stat(path)).size;
      if (size > limits.maxBytes)
        throw tooLarge(url, limits.maxBytes, `the file has ${size} bytes,`);
      for await (const chunk of createReadStream(path, { signal: deadline.controller.signal })) {
        const bytes = chunk as Buffer;
        hash.update(bytes);
        await out.write(bytes);
        received += bytes.length;
      }
      onProgress?.({ kind: "download", agent, url, received, total: received });
    } else {
      deadline.arm(
        limits.connectTimeoutMs,
        `the server did not answer within ${limits.connectTimeoutMs} ms`,
      );
      const response = await fetch(url, { signal: deadline.controller.signal });
      deadline.disarm();
      if (requireSecure && response.url !== "" && !isSecureSource(new URL(response.url))) {
        await response.body?.cancel();
        throw new RegistryError(
          "insecure_download",
          `The download of ${agent} from ${url} was redirected to ${response.url}, plain http to another host, and the registry gives no sha256 to check it with: refused.`,
        );
      }
      if (!response.ok || response.body === null) {
        await response.body?.cancel();
        throw new Error(`the server answered ${response.status} ${response.statusText}`.trim());
      }
      const length = Number(response.headers.get("content-length"));
      const total = Number.isFinite(length) && length > 0 ? length : undefined;
      if (total !== undefined && total > limits.maxBytes) {
        await response.body.cancel();
        throw tooLarge(url, limits.maxBytes, `the server announced ${total} bytes,`);
      }
      const reader = response.body.getReader();
      onProgress?.({ kind: "download", agent, url, received, total });
      for (;;) {
        deadline.arm(limits.idleTimeoutMs, `no data arrived for ${limits.idleTimeoutMs} ms`);
        const { done, value } = await reader.read();
        deadline.disarm();
        if (done) break;
        received += value.length;
        if (received > limits.maxBytes) {
          await reader.cancel().catch(() => undefined);
          throw tooLarge(url, limits.maxBytes, "the server sent");
        }
        hash.update(value);
        await out.write(value);
        onProgress?.({ kind: "download", agent, url, received, total });
      }
    }
  } catch (error) {
    if (error instanceof RegistryError) throw error;
    const cause =
      deadline.expired !== undefined
        ? new Error(deadline.expired)
        : error instanceof Error
          ? (error.cause ?? error)
          : error;
    throw new RegistryError(
      "download_failed",
      `Could not download ${agent} from ${url}: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause: error },
    );
  } finally {
    deadline.disarm();
    await out.close();
  }
  return { sha256: hash.digest("hex"), size: received };
}
