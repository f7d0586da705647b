/**
 * acp-kit/testing: a scripted agent driven by scenario files (and the built-in demo),
 * a test client for agent authors' unit tests, and the conformance checks.
 *
 * @packageDocumentation
 */
export * from "./scenario/index.js";
export * from "./scripted/index.js";
export * from "./test-client/index.js";
export * from "./conformance/index.js";
export * from "./probe/index.js";
