/**
 * Vitest setup: the CLI processes tests start remember their sessions in a temporary
 * state directory (`ACP_KIT_STATE_DIR`), never in the user's.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

process.env.ACP_KIT_STATE_DIR ??= mkdtempSync(join(tmpdir(), "acp-kit-test-state-"));
