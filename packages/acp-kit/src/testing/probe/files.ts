/**
 * The client probe's file-system step: write a new file through the client, read it
 * back (whole, then one line), and read a file that does not exist.
 *
 * @module
 */
import { randomBytes } from "node:crypto";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { RequestError } from "../../jsonrpc/errors.js";
import { failed, passed, skipped, type CheckOutcome } from "../conformance/catalog.js";
import { attempt, errorAnswer, errorText, type ProbeContext } from "./context.js";

/** What the probe writes: three lines. */
export const PROBE_FILE_CONTENT = "line one\nline two\nline three\n";

/** The outcomes of the file-system step. */
export interface FileOutcomes {
  /** `fs-write`. */
  readonly write: CheckOutcome;
  /** `fs-read`. */
  readonly read: CheckOutcome;
  /** `fs-read-missing`. */
  readonly missing: CheckOutcome;
}

async function probeWrite(context: ProbeContext, path: string): Promise<CheckOutcome> {
  const { connection, sessionId } = context;
  const toolCallId = "probe-fs-write";
  await context.send({
    sessionUpdate: "tool_call",
    toolCallId,
    title: "Write a temporary file (acp-kit probe)",
    kind: "edit",
    status: "in_progress",
    locations: [{ path }],
    content: [{ type: "diff", path, oldText: null, newText: PROBE_FILE_CONTENT }],
  });
  const params = { sessionId, path, content: PROBE_FILE_CONTENT };
  const written = await attempt(() => connection.writeTextFile(params));
  await context.send({
    sessionUpdate: "tool_call_update",
    toolCallId,
    status: written.ok ? "completed" : "failed",
  });
  if (!written.ok) {
    return failed(
      `fs/write_text_file of a new file failed: ${errorText(written.error)}`,
      context.quote("fs/write_text_file", params, errorAnswer(written.error)),
    );
  }
  const disk = await readFile(path, "utf8").catch(() => undefined);
  return passed(
    disk === PROBE_FILE_CONTENT
      ? []
      : [
          "The file is not on disk with the content written (an unsaved buffer, or a remote client?).",
        ],
  );
}

async function probeRead(context: ProbeContext, path: string): Promise<CheckOutcome> {
  const { connection, sessionId } = context;
  const whole = { sessionId, path };
  const all = await attempt(() => connection.readTextFile(whole));
  if (!all.ok) {
    return failed(
      `fs/read_text_file of an existing file failed: ${errorText(all.error)}`,
      context.quote("fs/read_text_file", whole, errorAnswer(all.error)),
    );
  }
  if (all.value.content !== PROBE_FILE_CONTENT) {
    return failed(
      "fs/read_text_file returned other content than the file's",
      context.quote("fs/read_text_file", whole, all.value),
    );
  }
  const ranged = { sessionId, path, line: 2, limit: 1 };
  const one = await attempt(() => connection.readTextFile(ranged));
  if (!one.ok) {
    return failed(
      `fs/read_text_file with line 2, limit 1 failed: ${errorText(one.error)}`,
      context.quote("fs/read_text_file", ranged, errorAnswer(one.error)),
    );
  }
  if (one.value.content !== "line two\n" && one.value.content !== "line two") {
    return failed(
      'fs/read_text_file with line 2, limit 1 must return "line two" (lines are 1-based, limit counts lines)',
      context.quote("fs/read_text_file", ranged, one.value),
    );
  }
  return passed();
}

async function probeMissing(context: ProbeContext, path: string): Promise<CheckOutcome> {
  const params = { sessionId: context.sessionId, path };
  const read = await attempt(() => context.connection.readTextFile(params));
  if (read.ok) {
    return failed(
      "Reading a file that does not exist returned content",
      context.quote("fs/read_text_file", params, read.value),
    );
  }
  if (read.error instanceof RequestError && read.error.code === -32002) return passed();
  return failed(
    `Reading a missing file answered ${errorText(read.error)}; -32002 (resource not found) is expected`,
    context.quote("fs/read_text_file", params, errorAnswer(read.error)),
  );
}

/**
 * Runs the file-system step. The file lives in the session's cwd (the only place a
 * client confined to the session's roots allows) under a dot-name, and is removed
 * afterwards (by the probe, directly: the protocol has no delete).
 */
export async function probeFiles(context: ProbeContext): Promise<FileOutcomes> {
  const fs = context.capabilities.fs;
  const canRead = fs?.readTextFile === true;
  const canWrite = fs?.writeTextFile === true;
  const tag = randomBytes(4).toString("hex");
  const path = join(context.cwd, `.acp-kit-probe-${tag}.txt`);
  try {
    const write = canWrite
      ? await probeWrite(context, path)
      : skipped("Not advertised (fs.writeTextFile)");
    if (!canRead) {
      const reason = "Not advertised (fs.readTextFile)";
      return { write, read: skipped(reason), missing: skipped(reason) };
    }
    if (write.status !== "pass") {
      // Make the file ourselves so that reading can still be checked.
      const made = await attempt(() => writeFile(path, PROBE_FILE_CONTENT));
      if (!made.ok) {
        const reason = `The probe could not create a file to read in ${context.cwd}`;
        return {
          write,
          read: skipped(reason),
          missing: await probeMissing(context, `${path}.missing`),
        };
      }
    }
    const read = await probeRead(context, path);
    const missing = await probeMissing(
      context,
      join(context.cwd, `.acp-kit-probe-missing-${tag}.txt`),
    );
    return { write, read, missing };
  } finally {
    await rm(path, { force: true }).catch(() => undefined);
  }
}
