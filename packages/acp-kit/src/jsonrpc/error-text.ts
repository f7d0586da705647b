/**
 * A peer's JSON-RPC error in words: its message and what its `data` says. Agents put the
 * real cause in `data` (`"CODEX_API_KEY is not set"`, `{"details": "..."}`,
 * `{"message": "stream disconnected ..."}`) under a generic message (`Internal error`);
 * showing only the message throws the cause away. Invalid parameters are said as the
 * fields at fault, not as raw JSON-RPC.
 *
 * @module
 */
import { isPlainObject } from "./messages.js";

/** A JSON-RPC error as it travels: a code, a message, maybe data. */
export interface PeerErrorLike {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** The longest text taken from `data`. */
const MAX_DETAIL = 300;

function clip(text: string, max = MAX_DETAIL): string {
  const flat = text.trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** `{path, message}` issues (ours, zod's, ajv's `instancePath`) as `path: message; ...`. */
function issuesText(issues: readonly unknown[]): string | undefined {
  const parts = issues.flatMap((issue) => {
    if (typeof issue === "string") return [issue];
    if (!isPlainObject(issue) || typeof issue.message !== "string") return [];
    const rawPath = issue.path ?? issue.instancePath;
    const path = Array.isArray(rawPath)
      ? rawPath.map(String).join(".")
      : typeof rawPath === "string"
        ? rawPath.replace(/^\//, "").replaceAll("/", ".")
        : "";
    return [path === "" ? issue.message : `${path}: ${issue.message}`];
  });
  if (parts.length === 0) return undefined;
  const shown = parts.slice(0, 3).join("; ");
  return parts.length > 3 ? `${shown}; and ${parts.length - 3} more` : shown;
}

/** zod's `format()` tree (`{_errors: [], field: {_errors: ["Required"]}}`) as issues. */
function zodTreeText(tree: Record<string, unknown>): string | undefined {
  const issues: string[] = [];
  const walk = (node: unknown, path: string[]): void => {
    if (!isPlainObject(node)) return;
    const errors = node._errors;
    if (Array.isArray(errors)) {
      for (const e of errors) {
        if (typeof e === "string") issues.push(path.length === 0 ? e : `${path.join(".")}: ${e}`);
      }
    }
    for (const [key, child] of Object.entries(node)) {
      if (key !== "_errors") walk(child, [...path, key]);
    }
  };
  walk(tree, []);
  return issuesText(issues);
}

/** What `data` says, in a line; `undefined` when it says nothing. */
export function errorDataText(data: unknown): string | undefined {
  if (data === undefined || data === null) return undefined;
  if (typeof data === "string") return data.trim() === "" ? undefined : clip(data);
  if (typeof data === "number" || typeof data === "boolean") return String(data);
  if (Array.isArray(data)) {
    if (data.length === 0) return undefined;
    return issuesText(data) ?? clip(JSON.stringify(data));
  }
  if (!isPlainObject(data)) return undefined;
  for (const key of ["details", "detail", "message", "error", "reason"]) {
    const value = data[key];
    if (typeof value === "string" && value.trim() !== "") return clip(value);
    if (isPlainObject(value) && typeof value.message === "string") return clip(value.message);
  }
  if (Array.isArray(data.issues)) {
    const text = issuesText(data.issues);
    if (text !== undefined) return text;
  }
  if ("_errors" in data) {
    const text = zodTreeText(data);
    if (text !== undefined) return text;
  }
  if (Object.keys(data).length === 0) return undefined;
  return clip(JSON.stringify(data), 200);
}

/**
 * A peer's error in one line: the message, then what `data` adds (when it adds
 * anything), then the code. `-32602` is said as the parameters the peer rejected.
 *
 * @param error - The error as received (a `RequestError`, or the wire object).
 * @param peer - Who answered, for the sentence about rejected parameters ("the agent").
 */
export function describePeerError(error: PeerErrorLike, peer = "the agent"): string {
  const detail = errorDataText(error.data);
  const message = error.message.trim();
  if (error.code === -32602) {
    const method =
      isPlainObject(error.data) && typeof error.data.method === "string"
        ? ` of ${error.data.method}`
        : "";
    const what = detail ?? (/^invalid params$/i.test(message) ? undefined : message);
    return `${capitalize(peer)} rejected the parameters${method}${what === undefined ? "" : `: ${what}`} (-32602 invalid params)`;
  }
  const adds =
    detail !== undefined && !message.toLowerCase().includes(detail.toLowerCase()) ? detail : "";
  const head = message === "" ? "(no message)" : message;
  return `${head}${adds === "" ? "" : `: ${adds}`} (${error.code})`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
