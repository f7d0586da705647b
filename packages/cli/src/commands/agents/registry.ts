/**
 * `acp-kit agents` (the named agents and the registry's), `acp-kit agents install ID` and
 * `acp-kit agents remove ID`, and the progress line shown on stderr while an agent is
 * downloaded or installed.
 *
 * @module
 */
import {
  chooseDistribution,
  defaultCacheDir,
  installDir,
  loadRegistry,
  readInstall,
  RegistryError,
  removeAgent,
  resolveAgent,
  type LoadedRegistry,
  type RegistryProgressListener,
} from "acp-kit/node";
import { agentProgramPath, agentsConfigPath, listAgents } from "../../agents.js";
import { UsageError } from "../../target.js";
import { printable } from "../../terminal-text.js";

/** A writable text stream with an optional TTY flag (stderr). */
interface TextOut {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

function megabytes(bytes: number): string {
  return (bytes / 1_000_000).toFixed(1);
}

/**
 * A progress listener that writes one line per step on `out`; a download's line is
 * redrawn in place on a terminal (at most every 100 ms), and printed at its start and end
 * otherwise.
 *
 * @param out - Usually `process.stderr`.
 */
export function progressLine(out: TextOut): RegistryProgressListener {
  let last = 0;
  let drawn = false;
  const endLine = (): void => {
    if (drawn) out.write("\n");
    drawn = false;
  };
  return (event) => {
    switch (event.kind) {
      case "fetch":
        return;
      case "download": {
        const size = event.total === undefined ? "" : ` of ${megabytes(event.total)} MB`;
        const text = `acp-kit: downloading ${event.agent}: ${megabytes(event.received)} MB${size}`;
        if (out.isTTY === true) {
          const now = Date.now();
          if (now - last < 100 && event.received !== event.total) return;
          last = now;
          out.write(`\r\x1b[2K${text}`);
          drawn = true;
        } else if (event.received === 0) {
          out.write(`acp-kit: downloading ${event.agent} from ${printable(event.url)}\n`);
        }
        return;
      }
      case "extract":
        endLine();
        out.write(`acp-kit: checking and extracting ${event.agent}\n`);
        return;
      case "install":
        endLine();
        out.write(`acp-kit: installing ${event.agent}: ${printable(event.command)}\n`);
        return;
      case "done":
        endLine();
        out.write(`acp-kit: installed ${event.agent} in ${event.dir}\n`);
        return;
    }
  };
}

/** What `acp-kit agents` shows about a registry agent. */
interface RegistryRow {
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly distribution: string;
  readonly installed: boolean;
}

async function registryRows(loaded: LoadedRegistry, cacheDir: string): Promise<RegistryRow[]> {
  return Promise.all(
    loaded.registry.agents.map(async (agent) => {
      const kind = chooseDistribution(agent);
      const installed =
        kind !== undefined && (await readInstall(installDir(cacheDir, agent, kind))) !== undefined;
      return {
        id: printable(agent.id),
        name: printable(agent.name),
        version: printable(agent.version),
        distribution: kind ?? "none for this platform",
        installed,
      };
    }),
  );
}

function sourceText(loaded: LoadedRegistry): string {
  const why =
    loaded.fetchError === undefined ? "" : ` (could not fetch: ${printable(loaded.fetchError)})`;
  if (loaded.source === "snapshot") return `the snapshot shipped with acp-kit${why}`;
  const when = loaded.fetchedAt?.toISOString().replace(/\.\d+Z$/, "Z") ?? "";
  return `${printable(loaded.url)}, ${loaded.source === "cache" ? "cached" : "fetched"} ${when}${why}`;
}

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length))) ?? [];
  return rows
    .map((r) =>
      r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  "),
    )
    .join("\n");
}

/**
 * `acp-kit agents`: the named agents (the user's and the built-in ones: whether each is
 * found here, and how it is launched) and the registry's (name, version, distribution,
 * installed or not).
 *
 * @param options - `json` prints one JSON document; `refresh` asks the registry now.
 */
export async function runAgentsList(options: {
  json?: boolean;
  refresh?: boolean;
}): Promise<number> {
  const named = listAgents().map((a) => ({ ...a, path: agentProgramPath(a) ?? null }));
  const cacheDir = defaultCacheDir();
  const loaded = await loadRegistry(options.refresh === true ? { refresh: true } : {});
  const rows = await registryRows(loaded, cacheDir);
  if (options.json === true) {
    const registry = {
      url: loaded.url,
      source: loaded.source,
      fetchError: loaded.fetchError ?? null,
      agents: rows,
    };
    process.stdout.write(JSON.stringify({ named, registry }, null, 2) + "\n");
    return 0;
  }
  const width = Math.max(...named.map((a) => a.name.length));
  process.stdout.write("Named agents:\n");
  for (const a of named) {
    const line = [a.command, ...a.args].join(" ");
    const where = a.path === null ? `${a.command} not found` : `found: ${a.path}`;
    process.stdout.write(
      `${a.name.padEnd(width)}  ${line}${a.source === "config" ? "  (config)" : ""}  [${where}]\n`,
    );
  }
  process.stdout.write(`\nRegistry agents (${sourceText(loaded)}):\n`);
  process.stdout.write(
    table([
      ["ID", "NAME", "VERSION", "DISTRIBUTION", "INSTALLED"],
      ...rows.map((r) => [r.id, r.name, r.version, r.distribution, r.installed ? "yes" : "no"]),
    ]) + "\n",
  );
  process.stdout.write(
    `\nRun any of them by name or id (acp-kit run ID); install ahead with acp-kit agents install ID.\n`,
  );
  process.stdout.write(`Add your own in ${agentsConfigPath()}:\n`);
  process.stdout.write(
    `  {"agents": {"mine": {"command": "node", "args": ["/path/to/agent.js"]}}}\n`,
  );
  return 0;
}

/**
 * `acp-kit agents install ID [--refresh]`: installs the agent into the cache (again with
 * `refresh`) and prints how it starts.
 *
 * @param id - The registry id.
 * @param options - `refresh` fetches the registry and installs again.
 */
export async function runAgentsInstall(
  id: string,
  options: { refresh?: boolean },
): Promise<number> {
  const refresh = options.refresh === true;
  const resolved = await resolveAgent(id, { refresh, onProgress: progressLine(process.stderr) });
  const { agent, distribution } = resolved;
  process.stdout.write(
    `${printable(`${agent.id} ${agent.version}`)} (${distribution}) is installed in ${resolved.dir}\n`,
  );
  process.stdout.write(
    `It starts as: ${printable([resolved.command, ...resolved.args].join(" "))}\n`,
  );
  return 0;
}

/**
 * `acp-kit agents remove ID`: removes every installed version of the agent.
 *
 * @param id - The registry id.
 */
export async function runAgentsRemove(id: string): Promise<number> {
  let removed: boolean;
  try {
    removed = await removeAgent(defaultCacheDir(), id);
  } catch (error) {
    // Not an id (`../..`): nothing was touched, and the user mistyped.
    if (error instanceof RegistryError && error.code === "invalid_entry")
      throw new UsageError(error.message);
    throw error;
  }
  process.stdout.write(removed ? `Removed ${id}.\n` : `${id} was not installed.\n`);
  return 0;
}
