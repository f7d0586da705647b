/**
 * What several commands share on their command lines: the parsers of option values
 * (`--cwd`, `--timeout`, `--port`, ...) and the groups of options that go together
 * (`--protocol` with `--proxy`, `--mode` with `--model`, the permission flags).
 *
 * @module
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { InvalidArgumentError, type Command } from "commander";
import type { McpServers } from "../mcp-config.js";
import type { SessionSettings } from "../session-options.js";
import { throughProxies, type AgentTarget } from "../target.js";

/** `--cwd`: made absolute (the protocol wants absolute paths), and it must be a directory. */
export function directory(value: string): string {
  const path = resolve(value);
  const stats = statSync(path, { throwIfNoEntry: false });
  if (stats === undefined) throw new InvalidArgumentError(`${path} does not exist.`);
  if (!stats.isDirectory()) throw new InvalidArgumentError(`${path} is not a directory.`);
  return path;
}

/** A whole number, zero or more (`--port`). */
export function nonNegativeInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new InvalidArgumentError("Give a whole number, 0 or more.");
  return n;
}

/** A number, zero or more (`--retention-window`). */
export function nonNegativeNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < 0)
    throw new InvalidArgumentError("Give a number, 0 or more.");
  return n;
}

const SIZE_UNITS: Record<string, number> = { "": 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };

/** A size in bytes, or with KiB, MiB or GiB (`--retention-bytes 64MiB`). */
export function byteSize(value: string): number {
  const match = /^(\d+)\s*(kib|mib|gib)?$/i.exec(value.trim());
  const unit = SIZE_UNITS[(match?.[2] ?? "").toLowerCase()];
  if (match === null || unit === undefined)
    throw new InvalidArgumentError("Give a size in bytes, or with KiB, MiB or GiB (64MiB).");
  return Number(match[1]) * unit;
}

/** A whole number above zero (`--request-timeout`). */
export function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new InvalidArgumentError("Give a whole number above 0.");
  return n;
}

const DURATION_UNITS: Record<string, number> = {
  "": 1000,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** A duration in seconds, or with ms, s, m or h (`--timeout 90`, `--timeout 5m`); in ms. */
export function duration(value: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/i.exec(value.trim());
  const unit = DURATION_UNITS[(match?.[2] ?? "").toLowerCase()];
  const ms = match === null || unit === undefined ? 0 : Number(match[1]) * unit;
  if (!(ms > 0))
    throw new InvalidArgumentError("Give a duration above 0: 90 (seconds), 90s, 5m, 1h.");
  return Math.ceil(ms);
}

/** The value of `--protocol`: auto, 1 or 2. */
export type ProtocolFlag = "auto" | 1 | 2;

/** `--protocol`: auto, 1 or 2 (v1 and v2 too). */
export function parseProtocol(value: string): ProtocolFlag {
  if (value === "auto") return "auto";
  if (value === "1" || value === "v1") return 1;
  if (value === "2" || value === "v2") return 2;
  throw new InvalidArgumentError("Give auto, 1 or 2.");
}

/** The options {@link withProtocolOptions} adds. */
export interface ProtocolFlags {
  readonly protocol?: ProtocolFlag;
  readonly proxy?: string[];
}

/** `--protocol` (which ACP version to speak with the agent) and `--proxy`. */
export function withProtocolOptions(command: Command): Command {
  return command
    .option(
      "--protocol <version>",
      "the ACP version to speak: auto (v2 when the agent speaks it, else v1), 1 or 2",
      parseProtocol,
      "auto",
    )
    .option(
      "--proxy <command>",
      "run through this proxy (one command line; repeat for a chain, client side first)",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    );
}

/** The target with the `--protocol` chosen, behind the `--proxy` chain when given. */
export function withProtocol(
  target: AgentTarget,
  protocol: ProtocolFlag | undefined,
  proxies?: readonly string[],
): AgentTarget {
  const chained = proxies === undefined ? target : throughProxies(target, proxies);
  return protocol === undefined ? chained : { ...chained, protocol };
}

/** `--mode`, `--model` and `--mcp-config`: what a session gets right after it opens. */
export interface SettingFlags {
  readonly mode?: string;
  readonly model?: string;
  readonly mcpConfig?: string;
}

/** Adds `--mode`, `--model` (set right after the session opens) and `--mcp-config`. */
export function withSettingOptions(command: Command): Command {
  return command
    .option("--mode <id>", "the session's mode (an id or name the agent offers)")
    .option("--model <id>", "the session's model (an id or name the agent offers)")
    .option(
      "--mcp-config <file>",
      "MCP servers for the agent: a JSON file with an mcpServers object, as editors use",
    );
}

/** The servers of `--mcp-config`, if given. */
export async function mcpServersOf(opts: SettingFlags): Promise<{ mcpServers?: McpServers }> {
  if (opts.mcpConfig === undefined) return {};
  const { readMcpConfig } = await import("../mcp-config.js");
  return { mcpServers: await readMcpConfig(opts.mcpConfig) };
}

/** The `--mode` and `--model` values given. */
export function settingsOf(opts: SettingFlags): SessionSettings {
  return {
    ...(opts.mode === undefined ? {} : { mode: opts.mode }),
    ...(opts.model === undefined ? {} : { model: opts.model }),
  };
}

/** The permission flags: `--yes`, `--allow-reads`, `--policy`, `--deny-all`. */
export function withPolicyOptions(command: Command): Command {
  return command
    .option("-y, --yes", "allow every permission request")
    .option("--allow-reads", "allow read-only tool calls (read, search, think)")
    .option("--policy <file>", "permission rules, one per line: allow|deny <kind|*> <glob>")
    .option("--deny-all", "reject every permission request no rule allows");
}
