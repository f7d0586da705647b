/**
 * The test client: an in-memory ACP client for agents' unit tests.
 *
 * @module
 */
export { TestClient, type TestClientOptions, type ExtMethodHandler } from "./client.js";
export { MemoryFiles, sliceLines } from "./files.js";
export {
  FakeTerminals,
  type FakeTerminal,
  type FakeTerminalScript,
  type TerminalScripts,
} from "./terminals.js";
export type { TestClientPermission } from "./permissions.js";
export type {
  TestClientRecord,
  UpdateRecord,
  UpdateRecordV2,
  RequestRecord,
  NotificationRecord,
  RecordedResponse,
} from "./records.js";
