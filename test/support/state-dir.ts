/**
 * Vitest setup: the CLI processes tests start remember their sessions in a temporary
 * state directory (`ACP_KIT_STATE_DIR`), never in the user's. Removed when the worker ends.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

if (process.env.ACP_KIT_STATE_DIR === undefined) {
  const dir = mkdtempSync(join(tmpdir(), "acp-kit-test-state-"));
  process.env.ACP_KIT_STATE_DIR = dir;
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
}
