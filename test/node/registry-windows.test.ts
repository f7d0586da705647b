/**
 * The command lines built for Windows batch files (npm's `.cmd` shims, a registry binary
 * whose `cmd` is a `.cmd`), checked as strings on any system: what `cmd.exe /d /s /c`
 * receives, with quotes, spaces and the characters cmd.exe interprets. And uv
 * distributions with a stand-in `uv` program that records how it was called.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  RegistryError,
  escapeForCmd,
  findOnPath,
  launchOf,
  quoteWindowsArg,
  resolveAgent,
  windowsBatchCommand,
  type RegistryAgent,
} from "../../packages/acp-kit/src/node/index.js";
import { testTempDir } from "../support/temp-dir.js";

describe("Windows command lines", () => {
  it("quotes arguments as CommandLineToArgvW splits them", () => {
    expect(quoteWindowsArg("plain")).toBe("plain");
    expect(quoteWindowsArg("")).toBe('""');
    expect(quoteWindowsArg("two words")).toBe('"two words"');
    expect(quoteWindowsArg('say "hi"')).toBe('"say \\"hi\\""');
    expect(quoteWindowsArg("C:\\dir with space\\")).toBe('"C:\\dir with space\\\\"');
    expect(quoteWindowsArg('a\\"b')).toBe('"a\\\\\\"b"');
    expect(quoteWindowsArg("no\\quote\\needed")).toBe("no\\quote\\needed");
  });

  it("escapes what cmd.exe interprets", () => {
    expect(escapeForCmd('a&b|c<d>e^f%g!h(i)"j')).toBe('a^&b^|c^<d^>e^^f^%g^!h^(i^)^"j');
  });

  it("starts a .cmd shim through cmd.exe with the program escaped once and arguments twice", () => {
    const command = windowsBatchCommand("C:\\Program Files\\agent\\agent.cmd", [
      "--acp",
      "two words",
      "a&b",
      "100%",
    ]);
    expect(command.command).toBe("cmd.exe");
    expect(command.windowsVerbatimArguments).toBe(true);
    expect(command.args).toEqual([
      "/d",
      "/s",
      "/c",
      '"^"C:\\Program Files\\agent\\agent.cmd^" --acp ^^^"two words^^^" a^^^&b 100^^^%"',
    ]);
    expect(windowsBatchCommand("x.cmd", [], "C:\\Windows\\system32\\cmd.exe").command).toBe(
      "C:\\Windows\\system32\\cmd.exe",
    );
  });

  it("launches a registry binary whose cmd is a .cmd file through that command line", () => {
    const agent: RegistryAgent = {
      id: "w",
      name: "w",
      version: "1.0.0",
      description: "d",
      distribution: {
        binary: {
          "windows-x86_64": {
            archive: "https://h/w.zip",
            cmd: "./dist\\w.cmd",
            args: ["acp", "x y"],
          },
        },
      },
    };
    const install = {
      id: "w",
      version: "1.0.0",
      kind: "binary" as const,
      program: "files\\dist\\w.cmd",
      viaNode: false,
      installedAt: "",
    };
    const launch = launchOf(
      agent,
      "binary",
      "C:\\cache\\agents\\w\\binary-1.0.0",
      install,
      "win32",
      "x64",
      {
        ComSpec: "C:\\WINDOWS\\system32\\cmd.exe",
      },
    );
    expect(launch.command).toBe("C:\\WINDOWS\\system32\\cmd.exe");
    expect(launch.windowsVerbatimArguments).toBe(true);
    expect(launch.args.slice(0, 3)).toEqual(["/d", "/s", "/c"]);
    expect(launch.args[3]).toMatch(
      /^"C:.cache.agents.w.binary-1\.0\.0.files\\dist\\w\.cmd acp \^\^\^"x y\^\^\^""$/,
    );
  });
});

describe("uvx distributions", () => {
  const agent: RegistryAgent = {
    id: "py",
    name: "py",
    version: "0.10.1",
    description: "d",
    distribution: { uvx: { package: "py-agent==0.10.1", args: ["-x"], env: { A: "1" } } },
  };
  const registry = {
    registry: { version: "1", agents: [agent] },
    source: "network" as const,
    url: "test",
    fetchedAt: undefined,
    problems: [],
    fetchError: undefined,
  };

  it("installs with uv tool install into the cache when uv is on the PATH", async () => {
    const bin = testTempDir("acp-uv-");
    const log = join(bin, "calls.log");
    // A stand-in for uv: records its arguments and the tool directories, makes the executable.
    writeFileSync(
      join(bin, "uv"),
      `#!/bin/sh\necho "$@|$UV_TOOL_DIR|$UV_TOOL_BIN_DIR" >> "${log}"\nmkdir -p "$UV_TOOL_BIN_DIR"\n` +
        `printf '#!/bin/sh\\necho hi\\n' > "$UV_TOOL_BIN_DIR/py-agent"\nchmod +x "$UV_TOOL_BIN_DIR/py-agent"\n`,
    );
    chmodSync(join(bin, "uv"), 0o755);
    if (process.platform === "win32") return;
    const cacheDir = testTempDir("acp-reg-");
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ""}` };
    expect(findOnPath("uv", env)).toBe(join(bin, "uv"));
    const resolved = await resolveAgent("py", { cacheDir, env, registry });
    expect(resolved.command).toBe(join(resolved.dir, "bin", "py-agent"));
    expect(resolved.args).toEqual(["-x"]);
    expect(resolved.env).toEqual({ A: "1" });
    await resolveAgent("py", { cacheDir, env, registry });
    const calls = readFileSync(log, "utf8").trim().split("\n");
    expect(calls).toEqual([
      `tool install --force py-agent==0.10.1|${join(resolved.dir, "tools")}|${join(resolved.dir, "bin")}`,
    ]);
  });

  it("says to install uv when it is not on the PATH", async () => {
    const empty = testTempDir("acp-empty-");
    mkdirSync(join(empty, "bin"));
    const error = await resolveAgent("py", {
      cacheDir: testTempDir("acp-reg-"),
      env: { PATH: join(empty, "bin") },
      registry,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegistryError);
    expect((error as RegistryError).code).toBe("tool_missing");
    expect((error as Error).message).toContain("Install uv");
  });
});
