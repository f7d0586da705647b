/**
 * Loading the registry: from the network with `ETag`/`If-None-Match` into a cache, from
 * the cached copy when the network fails, and from the snapshot shipped in the package
 * when there is neither.
 *
 * @module
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defaultCacheDir } from "./platform.js";
import type { RegistryProgressListener } from "./progress.js";
import snapshotData from "./snapshot.json";
import type { Registry } from "./types.js";
import { parseRegistry } from "./validate.js";

/** The public ACP registry. */
export const DEFAULT_REGISTRY_URL =
  "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json";

/** How long a fetched registry is used without asking the server again: 1 hour. */
export const DEFAULT_REGISTRY_MAX_AGE_MS = 60 * 60 * 1000;

/** How long a fetch of the registry may take: 10 s. */
export const DEFAULT_REGISTRY_TIMEOUT_MS = 10_000;

/** The largest registry document read: 16 MiB (the public one is a few hundred KiB). */
export const DEFAULT_REGISTRY_MAX_BYTES = 16 * 1024 * 1024;

/** Where the registry comes from and how it is cached. */
export interface RegistryOptions {
  /** The registry's URL (`https:`, `http:` or `file:`). Default: `ACP_REGISTRY_URL`, else {@link DEFAULT_REGISTRY_URL}. */
  readonly url?: string;
  /** The cache directory. Default: {@link defaultCacheDir}. */
  readonly cacheDir?: string;
  /** How old a cached copy may be before the server is asked again (default 1 hour). */
  readonly maxAgeMs?: number;
  /** Ask the server now, whatever the cached copy's age (it is still the fallback). */
  readonly refresh?: boolean;
  /** Never use the network: the cached copy, else the snapshot. */
  readonly offline?: boolean;
  /** Time limit of the fetch in milliseconds (default 10 000). */
  readonly timeoutMs?: number;
  /**
   * The largest document accepted, in bytes (default {@link DEFAULT_REGISTRY_MAX_BYTES}):
   * a larger one is refused while it is read, and the cached copy or the snapshot is used.
   */
  readonly maxBytes?: number;
  /** The environment read for `ACP_REGISTRY_URL` and the cache directory (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
  /** Told when the registry is fetched. */
  readonly onProgress?: RegistryProgressListener;
}

/** Where a loaded registry came from. */
export type RegistrySource = "network" | "cache" | "snapshot";

/** A loaded registry. */
export interface LoadedRegistry {
  /** The registry (agents that did not pass validation left out). */
  readonly registry: Registry;
  /** `network` (fetched now, or confirmed unchanged by a 304), `cache`, or `snapshot`. */
  readonly source: RegistrySource;
  /** The URL it was asked from. */
  readonly url: string;
  /** When it was last fetched or confirmed, for `network` and `cache`. */
  readonly fetchedAt: Date | undefined;
  /** Problems found in it (one line each). */
  readonly problems: readonly string[];
  /** Why the network was not used, when a fetch failed. */
  readonly fetchError: string | undefined;
}

interface CacheEntry {
  readonly url: string;
  readonly etag: string | undefined;
  readonly fetchedAt: number;
  readonly body: string;
}

/** The registry URL to use, from the option, `ACP_REGISTRY_URL` or the default. */
export function registryUrl(options: Pick<RegistryOptions, "url" | "env"> = {}): string {
  const env = options.env ?? process.env;
  const fromEnv = env.ACP_REGISTRY_URL;
  return options.url ?? (fromEnv !== undefined && fromEnv !== "" ? fromEnv : DEFAULT_REGISTRY_URL);
}

function cacheFile(cacheDir: string, url: string): string {
  const key = createHash("sha256").update(url).digest("hex").slice(0, 16);
  return join(cacheDir, "registry", `${key}.json`);
}

async function readCache(
  file: string,
  url: string,
  maxBytes: number,
): Promise<CacheEntry | undefined> {
  try {
    // The cache holds the document as a JSON string: escaping may double its size at most.
    if ((await stat(file)).size > 2 * maxBytes + 4096) return undefined;
    const entry = JSON.parse(await readFile(file, "utf8")) as CacheEntry;
    if (entry.url !== url || typeof entry.body !== "string") return undefined;
    return entry;
  } catch {
    return undefined;
  }
}

/** Writes a file whole or not at all: other processes never read half of it. */
export async function writeFileAtomic(file: string, data: string): Promise<void> {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    await writeFile(temp, data);
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

async function writeCache(file: string, entry: CacheEntry): Promise<void> {
  try {
    await mkdir(join(file, ".."), { recursive: true });
    await writeFileAtomic(file, JSON.stringify(entry));
  } catch {
    // A cache that cannot be written costs a fetch next time, nothing more.
  }
}

function fromBody(
  body: string,
  source: RegistrySource,
  url: string,
  fetchedAt: Date | undefined,
  fetchError?: string,
): LoadedRegistry {
  const { registry, problems } = parseRegistry(JSON.parse(body) as unknown);
  return { registry, source, url, fetchedAt, problems, fetchError };
}

function fromSnapshot(url: string, fetchError: string | undefined): LoadedRegistry {
  const { registry, problems } = parseRegistry(snapshotData);
  return { registry, source: "snapshot", url, fetchedAt: undefined, problems, fetchError };
}

type Fetched =
  | { readonly status: 200; readonly body: string; readonly etag: string | undefined }
  | { readonly status: 304 };

function tooLarge(maxBytes: number): Error {
  return new Error(`the registry is larger than ${maxBytes} bytes, the limit`);
}

/** Reads a body as text, refusing it once it passes `maxBytes`. */
async function boundedText(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<string> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

async function fetchRegistry(
  url: string,
  etag: string | undefined,
  timeoutMs: number,
  maxBytes: number,
): Promise<Fetched> {
  if (url.startsWith("file:")) {
    const path = fileURLToPath(url);
    if ((await stat(path)).size > maxBytes) throw tooLarge(maxBytes);
    return { status: 200, body: await readFile(path, "utf8"), etag: undefined };
  }
  const response = await fetch(url, {
    headers: {
      accept: "application/json",
      ...(etag === undefined ? {} : { "if-none-match": etag }),
    },
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (response.status === 304 && etag !== undefined) {
    await response.body?.cancel();
    return { status: 304 };
  }
  if (!response.ok || response.body === null) {
    await response.body?.cancel();
    throw new Error(`${url} answered ${response.status} ${response.statusText}`.trim());
  }
  const announced = Number(response.headers.get("content-length"));
  if (Number.isFinite(announced) && announced > maxBytes) {
    await response.body.cancel();
    throw tooLarge(maxBytes);
  }
  const body = await boundedText(response.body, maxBytes);
  return { status: 200, body, etag: response.headers.get("etag") ?? undefined };
}

/**
 * Loads the registry. A cached copy younger than `maxAgeMs` is used as is; otherwise the
 * server is asked, with the cached copy's `ETag` in `If-None-Match` (a `304` answer keeps
 * the copy and renews its age). On any failure of the fetch (offline, timeout, an error
 * status, a document that is not a registry) the cached copy is used whatever its age,
 * and the snapshot shipped with acp-kit when there is none. Never rejects because of the
 * network; `fetchError` says what happened.
 *
 * @param options - URL, cache directory, maximum age.
 */
export async function loadRegistry(options: RegistryOptions = {}): Promise<LoadedRegistry> {
  const env = options.env ?? process.env;
  const url = registryUrl(options);
  const file = cacheFile(options.cacheDir ?? defaultCacheDir(env), url);
  const maxBytes = options.maxBytes ?? DEFAULT_REGISTRY_MAX_BYTES;
  const cached = await readCache(file, url, maxBytes);
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_REGISTRY_MAX_AGE_MS;
  const cachedResult = (fetchError?: string): LoadedRegistry | undefined => {
    if (cached === undefined) return undefined;
    try {
      return fromBody(cached.body, "cache", url, new Date(cached.fetchedAt), fetchError);
    } catch {
      return undefined;
    }
  };
  if (
    cached !== undefined &&
    options.refresh !== true &&
    Date.now() - cached.fetchedAt < maxAgeMs
  ) {
    const fresh = cachedResult();
    if (fresh !== undefined) return fresh;
  }
  if (options.offline === true) return cachedResult("offline") ?? fromSnapshot(url, "offline");
  let fetchError: string;
  try {
    options.onProgress?.({ kind: "fetch", url });
    const fetched = await fetchRegistry(
      url,
      cached?.etag,
      options.timeoutMs ?? DEFAULT_REGISTRY_TIMEOUT_MS,
      maxBytes,
    );
    const now = Date.now();
    if (fetched.status === 304 && cached !== undefined) {
      const result = cachedResult();
      if (result !== undefined) {
        await writeCache(file, { ...cached, fetchedAt: now });
        return { ...result, source: "network", fetchedAt: new Date(now) };
      }
      throw new Error("the server answered 304 but the cached copy is unusable");
    }
    if (fetched.status !== 200) throw new Error("unexpected answer");
    const result = fromBody(fetched.body, "network", url, new Date(now));
    await writeCache(file, { url, etag: fetched.etag, fetchedAt: now, body: fetched.body });
    return result;
  } catch (error) {
    const cause = error instanceof Error ? (error.cause ?? error) : error;
    fetchError = cause instanceof Error ? cause.message : String(cause);
  }
  return cachedResult(fetchError) ?? fromSnapshot(url, fetchError);
}
