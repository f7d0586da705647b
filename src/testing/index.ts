/**
 * acp-kit/testing: a scripted agent, a test client and conformance checks.
 *
 * @packageDocumentation
 */
export {};
