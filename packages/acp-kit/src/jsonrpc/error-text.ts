/**
 * A peer's JSON-RPC error in words: its message and what its `data` says. Agents put the
 * real cause in `data` (`"CODEX_API_KEY is not set"`, `{"details": "..."}`,
 * `{"message": "stream disconnected ..."}`) under a generic message (`Internal error`);
 * showing only the message throws the cause away. Invalid parameters are said as the
 * fields at fault, not as raw JSON-RPC.
 *
 * @module
 */
import { jsonText } from "../base/json-text.js";
import { isPlainObject } from "../base/messages.js";

/** A JSON-RPC error as it travels: a code, a message, maybe data. */
export interface PeerErrorLike {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** The longest text taken from `data`. */
const MAX_DETAIL = 300;

/** Issues named in full; the others are counted. */
const SHOWN_ISSUES = 3;

function clip(text: string, max = MAX_DETAIL): string {
  const flat = text.trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** A value's JSON, clipped: written only as far as shown, at any depth (no recursion). */
function clipJson(value: unknown, max = MAX_DETAIL): string {
  return clip(jsonText(value, { maxChars: max + 1 }) ?? "", max);
}

/** A path element (`["a", 0]` or ajv's `/a/0`) as text; a nested value as its JSON start. */
function pathPart(part: unknown): string {
  return typeof part === "string" || typeof part === "number" ? String(part) : clipJson(part, 40);
}

/** The first issues, and how many more there are. */
function listIssues(shown: readonly string[], total: number): string | undefined {
  if (total === 0) return undefined;
  const text = shown.slice(0, SHOWN_ISSUES).join("; ");
  return total > SHOWN_ISSUES ? `${text}; and ${total - SHOWN_ISSUES} more` : text;
}

/** `{path, message}` issues (ours, zod's, ajv's `instancePath`) as `path: message; ...`. */
function issuesText(issues: readonly unknown[]): string | undefined {
  const parts = issues.flatMap((issue) => {
    if (typeof issue === "string") return [issue];
    if (!isPlainObject(issue) || typeof issue.message !== "string") return [];
    const rawPath = issue.path ?? issue.instancePath;
    const path = Array.isArray(rawPath)
      ? rawPath.map(pathPart).join(".")
      : typeof rawPath === "string"
        ? rawPath.replace(/^\//, "").replaceAll("/", ".")
        : "";
    return [path === "" ? issue.message : `${path}: ${issue.message}`];
  });
  return listIssues(parts, parts.length);
}

/** A node of a zod tree being walked: its path is its parent's and its key. */
interface ZodNode {
  readonly node: unknown;
  readonly key: string;
  readonly parent: ZodNode | undefined;
}

function zodPath(at: ZodNode): string {
  const keys: string[] = [];
  for (let n = at; n.parent !== undefined; n = n.parent) keys.push(n.key);
  return keys.reverse().join(".");
}

/** zod's `format()` tree (`{_errors: [], field: {_errors: ["Required"]}}`) as issues. */
function zodTreeText(tree: Record<string, unknown>): string | undefined {
  const shown: string[] = [];
  let total = 0;
  // Depth first with a stack of its own (a peer's tree may be nested deeper than the call
  // stack); a path is spelled out only for the issues shown.
  const stack: ZodNode[] = [{ node: tree, key: "", parent: undefined }];
  const seen = new Set<object>();
  for (let at = stack.pop(); at !== undefined; at = stack.pop()) {
    const node = at.node;
    if (!isPlainObject(node) || seen.has(node)) continue;
    seen.add(node);
    const errors = node._errors;
    if (Array.isArray(errors)) {
      for (const e of errors) {
        if (typeof e !== "string") continue;
        total++;
        if (shown.length >= SHOWN_ISSUES) continue;
        const path = zodPath(at);
        shown.push(path === "" ? e : `${clip(path, MAX_DETAIL)}: ${e}`);
      }
    }
    // Pushed last first: the first key is walked first.
    for (const key of Object.keys(node).reverse()) {
      if (key !== "_errors") stack.push({ node: node[key], key, parent: at });
    }
  }
  return listIssues(shown, total);
}

/** What `data` says, in a line; `undefined` when it says nothing. */
export function errorDataText(data: unknown): string | undefined {
  if (data === undefined || data === null) return undefined;
  if (typeof data === "string") return data.trim() === "" ? undefined : clip(data);
  if (typeof data === "number" || typeof data === "boolean") return String(data);
  if (Array.isArray(data)) {
    if (data.length === 0) return undefined;
    return issuesText(data) ?? clipJson(data);
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
  return clipJson(data, 200);
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
