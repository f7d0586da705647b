/**
 * The in-memory file system of a {@link TestClient}: a map from absolute path to content,
 * served through `fs/read_text_file` and `fs/write_text_file`.
 *
 * @module
 */
import { RequestError } from "../../jsonrpc/errors.js";
import type {
  ReadTextFileRequest,
  ReadTextFileResponse,
  WriteTextFileRequest,
  WriteTextFileResponse,
} from "../../schema/types.gen.js";
import { isAbsolutePath } from "../../agent/ids.js";

/**
 * The lines `line` (1-based) to `line + limit - 1` of `content`, line endings kept;
 * the whole content when neither is given.
 */
export function sliceLines(
  content: string,
  line: number | null | undefined,
  limit: number | null | undefined,
): string {
  if ((line === undefined || line === null) && (limit === undefined || limit === null)) {
    return content;
  }
  const lines = content.split(/(?<=\n)/);
  const from = Math.max(0, (line ?? 1) - 1);
  const to = limit === undefined || limit === null ? lines.length : from + limit;
  return lines.slice(from, to).join("");
}

/**
 * Files kept in a `Map` (path -> content). Reads of a missing path answer `-32002`;
 * relative paths answer `-32602`; writes create or replace the entry.
 */
export class MemoryFiles {
  /** The files, live: tests may read and change it directly. */
  readonly map: Map<string, string>;

  /**
   * Creates the file system.
   *
   * @param files - The initial files, by absolute path.
   */
  constructor(files: Readonly<Record<string, string>> = {}) {
    this.map = new Map(Object.entries(files));
  }

  /** `fs/read_text_file`. */
  read(params: ReadTextFileRequest): ReadTextFileResponse {
    const path = this.checkPath(params.path);
    const content = this.map.get(path);
    if (content === undefined) throw RequestError.resourceNotFound(path);
    if (params.line === 0) {
      throw RequestError.invalidParams({ line: 0 }, "line numbers are 1-based");
    }
    return { content: sliceLines(content, params.line, params.limit) };
  }

  /** `fs/write_text_file`. */
  write(params: WriteTextFileRequest): WriteTextFileResponse {
    this.map.set(this.checkPath(params.path), params.content);
    return {};
  }

  /** The files as a plain object, sorted by path (handy for snapshots). */
  snapshot(): Record<string, string> {
    return Object.fromEntries([...this.map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  private checkPath(path: string): string {
    if (!isAbsolutePath(path)) {
      throw RequestError.invalidParams({ path }, "paths must be absolute");
    }
    return path;
  }
}
