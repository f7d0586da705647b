/**
 * acp-kit/node: Node.js helpers for ACP clients and agents.
 *
 * @packageDocumentation
 */
export {};
