/**
 * Downloading an archive to a file while hashing it.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { open, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { RegistryError } from "./errors.js";
import type { RegistryProgressListener } from "./progress.js";

/** What was downloaded. */
export interface Download {
  /** Hex SHA-256 of the bytes. */
  readonly sha256: string;
  /** How many bytes. */
  readonly size: number;
}

/**
 * Downloads `url` (`https:`, `http:` or `file:`) into `file`, reporting progress.
 *
 * @param url - The archive's URL.
 * @param file - Where to write it.
 * @param agent - The agent's id, for progress and messages.
 * @param onProgress - Told as bytes arrive.
 * @param signal - Aborts the download.
 */
export async function download(
  url: string,
  file: string,
  agent: string,
  onProgress?: RegistryProgressListener,
  signal?: AbortSignal,
): Promise<Download> {
  const hash = createHash("sha256");
  const out = await open(file, "w");
  let received = 0;
  try {
    if (url.startsWith("file:")) {
      const data = await readFile(fileURLToPath(url));
      hash.update(data);
      await out.write(data);
      received = data.length;
      onProgress?.({ kind: "download", agent, url, received, total: received });
    } else {
      const response = await fetch(url, signal === undefined ? {} : { signal });
      if (!response.ok || response.body === null) {
        await response.body?.cancel();
        throw new Error(`the server answered ${response.status} ${response.statusText}`.trim());
      }
      const length = Number(response.headers.get("content-length"));
      const total = Number.isFinite(length) && length > 0 ? length : undefined;
      const reader = response.body.getReader();
      onProgress?.({ kind: "download", agent, url, received, total });
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        hash.update(value);
        await out.write(value);
        received += value.length;
        onProgress?.({ kind: "download", agent, url, received, total });
      }
    }
  } catch (error) {
    const cause = error instanceof Error ? (error.cause ?? error) : error;
    throw new RegistryError(
      "download_failed",
      `Could not download ${agent} from ${url}: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause: error },
    );
  } finally {
    await out.close();
  }
  return { sha256: hash.digest("hex"), size: received };
}
