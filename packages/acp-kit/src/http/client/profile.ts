/**
 * The remote client profile: what a client tells a remote agent it can do.
 *
 * @module
 */
import type { ClientCapabilities } from "../../schema/types.gen.js";

/** What to offer a remote agent beyond the default of nothing local. */
export interface RemoteCapabilityOptions {
  /** Let the agent read files through the client (`fs/read_text_file`). Default false. */
  readonly readFiles?: boolean;
  /** Let the agent write files through the client (`fs/write_text_file`). Default false. */
  readonly writeFiles?: boolean;
  /** Let the agent run commands through the client (`terminal/*`). Default false. */
  readonly terminal?: boolean;
}

/**
 * Client capabilities for a remote agent: no file system and no terminal unless asked
 * for, so that an agent on another machine cannot read or change this machine's disk, or
 * run commands on it, by accident. Pass the result as `clientCapabilities` of
 * `initialize`.
 *
 * @param options - What to allow (everything off by default).
 */
export function remoteClientCapabilities(
  options: RemoteCapabilityOptions = {},
): ClientCapabilities {
  return {
    fs: { readTextFile: options.readFiles === true, writeTextFile: options.writeFiles === true },
    terminal: options.terminal === true,
  };
}

/**
 * Narrows capabilities a local client would advertise down to the remote profile: file
 * system and terminal entries are turned off unless `options` allows them; everything else
 * is kept.
 *
 * @param capabilities - What the client would offer a local agent.
 * @param options - What to keep for a remote one.
 */
export function restrictForRemote(
  capabilities: ClientCapabilities | undefined,
  options: RemoteCapabilityOptions = {},
): ClientCapabilities {
  const base = capabilities ?? {};
  return {
    ...base,
    fs: {
      ...base.fs,
      readTextFile: options.readFiles === true && base.fs?.readTextFile === true,
      writeTextFile: options.writeFiles === true && base.fs?.writeTextFile === true,
    },
    terminal: options.terminal === true && base.terminal === true,
  };
}

/**
 * Whether the remote profile lets the agent send this request to the client: `fs/read_text_file`
 * needs `readFiles`, `fs/write_text_file` `writeFiles`, and every `terminal/*` method
 * `terminal`; any other method is not the profile's business. A client (or a bridge in
 * front of one) answers a request it does not allow with "method not found", as for a
 * capability it never advertised.
 *
 * @param method - The request's method.
 * @param options - What the profile allows (everything off by default).
 */
export function remoteAllows(method: string, options: RemoteCapabilityOptions = {}): boolean {
  if (method === "fs/read_text_file") return options.readFiles === true;
  if (method === "fs/write_text_file") return options.writeFiles === true;
  if (method.startsWith("terminal/")) return options.terminal === true;
  return true;
}
