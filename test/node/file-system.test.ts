import { execFileSync } from "node:child_process";
import * as fsp from "node:fs/promises";
import path from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  AgentSideConnection,
  ClientSideConnection,
  memoryStreamPair,
  RequestError,
} from "../../packages/acp-kit/src/index.js";
import {
  FileSystemHandler,
  type FileSystemHandlerOptions,
} from "../../packages/acp-kit/src/node/fs/handler.js";
import { ESCAPE_CORPUS } from "./fixtures/fs-escape-corpus.js";
import { makeTree, type FsTree } from "./fixtures/fs-tree.js";

// Pass-through spy on rename, so that one test can make it fail.
vi.mock("node:fs/promises", async (importOriginal) => {
  const original = await importOriginal<typeof import("node:fs/promises")>();
  return { ...original, rename: vi.fn(original.rename) };
});

const { chmod, chown, lstat, mkdir, readFile, readdir, readlink, stat, symlink, writeFile } = fsp;

// Symbolic links, FIFOs, modes and /dev are POSIX matters.
const posix = process.platform !== "win32";

let tree: FsTree;
let files: FileSystemHandler;

function handler(options: FileSystemHandlerOptions = {}): FileSystemHandler {
  const made = new FileSystemHandler(options);
  made.addSession("s1", [tree.root, tree.other]);
  made.addSession("s2", { cwd: tree.session2 });
  return made;
}

const read = (p: string, extra: { line?: number | null; limit?: number | null } = {}) =>
  files.readTextFile({ sessionId: "s1", path: p, ...extra });
const write = (p: string, content: string, on = files) =>
  on.writeTextFile({ sessionId: "s1", path: p, content });

/** Awaits a rejection and checks it is a RequestError with this code and reason. */
async function rejection(promise: Promise<unknown>, code: number, reason: string) {
  const error: unknown = await promise.then(
    () => expect.fail("expected a rejection"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RequestError);
  const e = error as RequestError;
  expect({ code: e.code, reason: (e.data as { reason?: string }).reason }).toEqual({
    code,
    reason,
  });
  return e;
}

beforeEach(async () => {
  if (!posix) return;
  tree = await makeTree();
  files = handler();
});
afterEach(async () => {
  vi.mocked(fsp.rename).mockClear();
  if (posix) await tree.cleanup();
});

describe.runIf(posix)("escape corpus: paths outside the session's roots are refused", () => {
  it.each(ESCAPE_CORPUS)("read: %s", async (_name, make, reason) => {
    const e = await rejection(read(make(tree)), -32602, reason);
    expect(e.message.length).toBeGreaterThan(20);
  });

  it.each(ESCAPE_CORPUS)("write: %s (nothing is written)", async (_name, make, reason) => {
    const before = await readFile(path.join(tree.outside, "secret.txt"), "utf8");
    await rejection(write(make(tree), "pwned\n"), -32602, reason);
    expect(await readFile(path.join(tree.outside, "secret.txt"), "utf8")).toBe(before);
    expect(await readdir(tree.outside)).toEqual(["a.txt", "secret.txt"]);
  });

  it("does not say where a link outside the roots leads", async () => {
    await symlink(path.join(tree.outside, "secret.txt"), path.join(tree.outside, "pointer"));
    const e = await rejection(read(path.join(tree.outside, "pointer")), -32602, "outside_roots");
    expect(e.message).not.toContain("secret.txt");
    expect(JSON.stringify(e.data)).not.toContain("secret.txt");
    // Nor where a link inside a root leads: only the path asked for is named.
    const inside = await rejection(read(`${tree.root}/link-file`), -32602, "outside_roots");
    expect(inside.message).toContain(`${tree.root}/link-file`);
    expect(inside.message).not.toContain("secret.txt");
    expect(JSON.stringify(inside.data)).not.toContain("secret.txt");
    expect(inside.data).not.toHaveProperty("realPath");
  });

  it("suggests the absolute path for a relative one", async () => {
    const e = await rejection(read("sub/b.txt"), -32602, "relative_path");
    expect(e.data).toMatchObject({ suggestion: path.join(tree.root, "sub/b.txt") });
    expect(e.message).toContain("absolute");
  });

  it("names the roots when refusing, and logs where the link leads locally", async () => {
    const warnings: unknown[] = [];
    const logged = handler({ logger: { warn: (message, fields) => warnings.push(fields) } });
    const e = await rejection(
      logged.readTextFile({ sessionId: "s1", path: `${tree.root}/link-file` }),
      -32602,
      "outside_roots",
    );
    expect(e.message).not.toContain(path.join(tree.outside, "secret.txt"));
    expect(e.data).toEqual({
      reason: "outside_roots",
      path: `${tree.root}/link-file`,
      roots: [tree.root, tree.other],
    });
    expect(warnings).toEqual([
      {
        sessionId: "s1",
        path: `${tree.root}/link-file`,
        realPath: path.join(tree.outside, "secret.txt"),
      },
    ]);
  });

  it("resolves a directory named with a trailing separator or /. (a terminal's cwd)", async () => {
    expect(await files.resolvePath("s1", `${tree.root}/sub/`)).toBe(path.join(tree.root, "sub"));
    expect(await files.resolvePath("s1", `${tree.root}/.`)).toBe(tree.root);
    await rejection(files.resolvePath("s1", `${tree.outside}/`), -32602, "outside_roots");
    // Reads and writes still want a file name.
    await rejection(read(`${tree.root}/sub/`), -32602, "trailing_separator");
  });

  it("resolves a session's roots once, when it is added: a root swapped for a link later is not followed", async () => {
    const root = path.join(tree.base, "swapped");
    await mkdir(root);
    await writeFile(path.join(root, "mine.txt"), "mine\n");
    files.addSession("s4", [root]);
    expect(await files.readTextFile({ sessionId: "s4", path: `${root}/mine.txt` })).toEqual({
      content: "mine\n",
    });
    await fsp.rm(root, { recursive: true });
    await symlink(tree.outside, root);
    await rejection(
      files.readTextFile({ sessionId: "s4", path: `${root}/secret.txt` }),
      -32602,
      "outside_roots",
    );
  });

  it("does not create the target of a dangling link that points outside", async () => {
    await symlink(path.join(tree.outside, "new.txt"), path.join(tree.root, "dangling"));
    await rejection(write(`${tree.root}/dangling`, "x"), -32602, "outside_roots");
    await rejection(read(`${tree.root}/dangling`), -32602, "outside_roots");
    // A chain of dangling links ending outside is followed to its end.
    await symlink(path.join(tree.root, "dangling"), path.join(tree.root, "dangling-2"));
    await rejection(write(`${tree.root}/dangling-2`, "x"), -32602, "outside_roots");
    await expect(stat(path.join(tree.outside, "new.txt"))).rejects.toThrow();
  });

  it("never changes a file outside through a hard link (documented: reads see it)", async () => {
    await fsp.link(path.join(tree.outside, "secret.txt"), path.join(tree.root, "hard"));
    expect(await read(`${tree.root}/hard`)).toEqual({ content: "secret\n" });
    await write(`${tree.root}/hard`, "replaced\n");
    expect(await readFile(path.join(tree.outside, "secret.txt"), "utf8")).toBe("secret\n");
    expect(await readFile(path.join(tree.root, "hard"), "utf8")).toBe("replaced\n");
  });

  it("refuses a location whose real name is not UTF-8", async () => {
    const weird = Buffer.concat([Buffer.from(`${tree.outside}/`), Buffer.from([0xff, 0xfe])]);
    await mkdir(weird);
    await writeFile(Buffer.concat([weird, Buffer.from("/f.txt")]), "x");
    await symlink(weird, path.join(tree.root, "weird"));
    await rejection(read(`${tree.root}/weird/f.txt`), -32602, "non_utf8_name");
    // An in-root file with a non-UTF-8 name cannot be named: U+FFFD is another name.
    await writeFile(Buffer.concat([Buffer.from(`${tree.root}/`), Buffer.from([0xff])]), "x");
    await rejection(read(`${tree.root}/\ufffd`), -32002, "not_found");
  });

  it("treats case variants as different paths on a case-sensitive file system", async () => {
    const upper = path.join(tree.base, "ROOT");
    const caseSensitive = await stat(upper).then(
      () => false,
      () => true,
    );
    if (!caseSensitive) return;
    await rejection(read(`${upper}/a.txt`), -32602, "outside_roots");
    await rejection(read(`${tree.root}/A.TXT`), -32002, "not_found");
  });

  it("refuses unknown, removed and malformed sessions (fail closed)", async () => {
    const e = await rejection(
      files.readTextFile({ sessionId: "nope", path: `${tree.root}/a.txt` }),
      -32602,
      "unknown_session",
    );
    expect(e.message).toContain("nope");
    expect(files.removeSession("s1")).toBe(true);
    await rejection(read(`${tree.root}/a.txt`), -32602, "unknown_session");
    const bad = { sessionId: 7 as unknown as string, path: `${tree.root}/a.txt` };
    await rejection(files.readTextFile(bad), -32602, "invalid_argument");
  });

  it("refuses everything when the session's roots do not exist or are empty", async () => {
    files.addSession("gone", [path.join(tree.base, "missing-root")]);
    files.addSession("none", []);
    for (const sessionId of ["gone", "none"]) {
      const p = path.join(tree.base, "missing-root", "x.txt");
      await rejection(
        files.writeTextFile({ sessionId, path: p, content: "" }),
        -32602,
        "outside_roots",
      );
    }
  });
});

describe.runIf(posix)("paths allowed inside the roots", () => {
  it("normalises ., .. and repeated slashes lexically before resolving", async () => {
    expect(await read(`${tree.root}/sub/../a.txt`)).toEqual({ content: "root a\n" });
    expect(await read(`${tree.root}/../root/./sub//b.txt`)).toEqual({ content: "root b\n" });
    // `..` after a link to outside is lexical: this is root/a.txt, not outside/a.txt.
    expect(await read(`${tree.root}/link-dir/../a.txt`)).toEqual({ content: "root a\n" });
    // ... so the kernel's reading (base/outside/secret.txt) is never reached.
    await rejection(read(`${tree.root}/link-dir/../outside/secret.txt`), -32002, "not_found");
  });

  it("follows a link into another root of the same session", async () => {
    expect(await read(`${tree.root}/to-other/o.txt`)).toEqual({ content: "other\n" });
    expect(await read(`${tree.other}/o.txt`)).toEqual({ content: "other\n" });
    expect(await files.resolvePath("s1", `${tree.root}/to-other/o.txt`)).toBe(
      path.join(tree.other, "o.txt"),
    );
  });

  it("keeps sessions apart and accepts a root given through a link", async () => {
    const s2 = { sessionId: "s2", path: `${tree.session2}/s2.txt` };
    expect(await files.readTextFile(s2)).toEqual({ content: "session 2\n" });
    const viaLink = path.join(tree.base, "root-link");
    await symlink(tree.root, viaLink);
    files.addSession("s3", [viaLink]);
    for (const p of [`${viaLink}/a.txt`, `${tree.root}/a.txt`]) {
      expect(await files.readTextFile({ sessionId: "s3", path: p })).toEqual({
        content: "root a\n",
      });
    }
  });

  it("uses the roots option for unregistered sessions; registered ones win", async () => {
    const lookup = vi.fn((id: string) => (id === "dyn" ? [tree.outside] : undefined));
    const made = new FileSystemHandler({ roots: lookup });
    const p = `${tree.outside}/secret.txt`;
    expect(await made.readTextFile({ sessionId: "dyn", path: p })).toEqual({ content: "secret\n" });
    await rejection(made.readTextFile({ sessionId: "x", path: p }), -32602, "unknown_session");
    made.addSession("dyn", [tree.root]);
    await rejection(made.readTextFile({ sessionId: "dyn", path: p }), -32602, "outside_roots");
    expect(made.rootsOf("dyn")).toEqual([tree.root]);
  });

  it("validates roots when they are added", () => {
    expect(() => files.addSession("bad", ["relative/dir"])).toThrow(TypeError);
    expect(() => files.addSession("bad", { cwd: "/ok", additionalDirectories: [""] })).toThrow(
      /#1/,
    );
    files.addSession("dup", {
      cwd: tree.root,
      additionalDirectories: [tree.root, `${tree.root}/`],
    });
    expect(files.rootsOf("dup")).toEqual([tree.root]);
  });

  it("allows everything under / when / is a root", async () => {
    files.addSession("all", ["/"]);
    const p = `${tree.outside}/secret.txt`;
    expect(await files.readTextFile({ sessionId: "all", path: p })).toEqual({
      content: "secret\n",
    });
  });
});

describe.runIf(posix)("fs/read_text_file: line and limit", () => {
  const cases: [string, number | null | undefined, number | null | undefined, string][] = [
    ["whole file", undefined, undefined, "l1\nl2\nl3\n"],
    ["null is omitted", null, null, "l1\nl2\nl3\n"],
    ["first line", 1, 1, "l1\n"],
    ["from line 2", 2, undefined, "l2\nl3\n"],
    ["middle", 2, 1, "l2\n"],
    ["limit past the end", 3, 5, "l3\n"],
    ["line just past the end", 4, undefined, ""],
    ["line far past the end", 1000, 2, ""],
    ["limit 0", 1, 0, ""],
  ];
  it.each(cases)("%s (line %s, limit %s)", async (_name, line, limit, expected) => {
    await writeFile(path.join(tree.root, "l.txt"), "l1\nl2\nl3\n");
    expect(await read(`${tree.root}/l.txt`, { line, limit })).toEqual({ content: expected });
  });

  it("handles a missing final newline, CRLF, lone CR and empty files", async () => {
    await writeFile(path.join(tree.root, "n.txt"), "a\nb");
    await writeFile(path.join(tree.root, "crlf.txt"), "a\r\nb\r\nc");
    await writeFile(path.join(tree.root, "cr.txt"), "a\rb\nc");
    await writeFile(path.join(tree.root, "e.txt"), "");
    expect(await read(`${tree.root}/n.txt`, { line: 2 })).toEqual({ content: "b" });
    expect(await read(`${tree.root}/n.txt`, { line: 3 })).toEqual({ content: "" });
    expect(await read(`${tree.root}/crlf.txt`, { line: 2, limit: 1 })).toEqual({
      content: "b\r\n",
    });
    expect(await read(`${tree.root}/crlf.txt`)).toEqual({ content: "a\r\nb\r\nc" });
    expect(await read(`${tree.root}/cr.txt`, { line: 2 })).toEqual({ content: "c" });
    expect(await read(`${tree.root}/e.txt`)).toEqual({ content: "" });
    expect(await read(`${tree.root}/e.txt`, { line: 1, limit: 3 })).toEqual({ content: "" });
  });

  it.each([
    ["line", 0, /count from 1/],
    ["line", -1, /integer/],
    ["line", 1.5, /integer/],
    ["line", "2", /integer/],
    ["limit", -1, /integer/],
    ["limit", 2 ** 32, /integer/],
  ])("refuses %s %j", async (name, value, message) => {
    const e = await rejection(
      read(`${tree.root}/a.txt`, { [name]: value as number }),
      -32602,
      "invalid_argument",
    );
    expect(e.message).toMatch(message);
  });

  it("matches a split-based model on files larger than one read chunk", async () => {
    // Lines of up to 4 KiB (so ranges straddle the 64 KiB read chunks) with mixed endings.
    const line = fc
      .tuple(
        fc.noBias(fc.nat(4096)),
        fc.constantFrom("a", "é", "\r", "🌍"),
        fc.constantFrom("\n", "\r\n", ""),
      )
      .map(([length, char, end]) => char.repeat(length) + end);
    const file = fc
      .array(line, { minLength: 10, maxLength: 100, size: "max" })
      .map((lines) => lines.join(""));
    await fc.assert(
      fc.asyncProperty(
        file,
        fc.noBias(fc.nat(100)),
        fc.option(fc.noBias(fc.nat(100))),
        async (content, skip, limit) => {
          await writeFile(path.join(tree.root, "p.txt"), content);
          const lines = content.split(/(?<=\n)/).filter((l) => l !== "");
          const expected = lines.slice(skip, limit === null ? undefined : skip + limit).join("");
          const got = await read(`${tree.root}/p.txt`, { line: skip + 1, limit });
          expect(got.content).toBe(expected);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe.runIf(posix)("fs/read_text_file: what can be read", () => {
  it("answers -32002 with the path for a missing file", async () => {
    for (const p of [
      `${tree.root}/nope.txt`,
      `${tree.root}/no/dir/x.txt`,
      `${tree.root}/a.txt/x`,
    ]) {
      const e = await rejection(read(p), -32002, "not_found");
      expect(e.data).toMatchObject({ uri: p, path: p });
      expect(e.message).toContain(p);
    }
  });

  it("refuses directories, FIFOs and devices without reading them", async () => {
    await rejection(read(tree.root), -32602, "is_directory");
    await rejection(read(`${tree.root}/sub`), -32602, "is_directory");
    execFileSync("mkfifo", [path.join(tree.root, "fifo")]);
    await rejection(read(`${tree.root}/fifo`), -32602, "not_regular_file");
    files.addSession("dev", ["/dev"]);
    const zero = files.readTextFile({ sessionId: "dev", path: "/dev/zero" });
    await rejection(zero, -32602, "not_regular_file");
  });

  it("refuses a whole file over maxReadBytes but serves a range of it", async () => {
    files = handler({ maxReadBytes: 1000 });
    const big = Array.from({ length: 500 }, (_, i) => `line ${i + 1}\n`).join("");
    await writeFile(path.join(tree.root, "big.txt"), big);
    const e = await rejection(read(`${tree.root}/big.txt`), -32602, "too_large");
    expect(e.data).toMatchObject({ size: Buffer.byteLength(big), maxBytes: 1000 });
    expect(e.message).toMatch(/line and limit/);
    expect(await read(`${tree.root}/big.txt`, { line: 400, limit: 2 })).toEqual({
      content: "line 400\nline 401\n",
    });
    await rejection(read(`${tree.root}/big.txt`, { line: 2, limit: 300 }), -32602, "too_large");
    await rejection(read(`${tree.root}/big.txt`, { line: 2 }), -32602, "too_large");
  });

  it("does not scan a huge file for lines far down it", async () => {
    files = handler({ maxReadBytes: 1000 }); // scans at most about 16 times that
    const big = Array.from({ length: 20_000 }, (_, i) => `line ${i + 1}\n`).join("");
    await writeFile(path.join(tree.root, "huge.txt"), big);
    expect(await read(`${tree.root}/huge.txt`, { line: 100, limit: 1 })).toEqual({
      content: "line 100\n",
    });
    const e = await rejection(
      read(`${tree.root}/huge.txt`, { line: 19_000, limit: 1 }),
      -32602,
      "too_large",
    );
    expect(e.message).toMatch(/too far to look for them/);
  });

  it("refuses invalid UTF-8 by default, or replaces it when configured", async () => {
    await writeFile(path.join(tree.root, "bin"), Buffer.from([0x61, 0x0a, 0xff, 0xfe, 0x0a]));
    const e = await rejection(read(`${tree.root}/bin`), -32602, "invalid_utf8");
    expect(e.message).toMatch(/not valid UTF-8/);
    expect(await read(`${tree.root}/bin`, { line: 1, limit: 1 })).toEqual({ content: "a\n" });
    files = handler({ invalidUtf8: "replace" });
    expect(await read(`${tree.root}/bin`)).toEqual({ content: "a\n\ufffd\ufffd\n" });
  });

  it("keeps a byte order mark so that a round trip keeps it", async () => {
    const p = path.join(tree.root, "bom.txt");
    await writeFile(p, Buffer.from([0xef, 0xbb, 0xbf, 0x68, 0x69]));
    const { content } = await read(p);
    expect(content).toBe("\ufeffhi");
    await write(p, content);
    expect([...(await readFile(p))]).toEqual([0xef, 0xbb, 0xbf, 0x68, 0x69]);
  });

  it("serves the editor's unsaved text when there is some, after the roots check", async () => {
    const unsavedText = vi.fn((real: string) =>
      real.endsWith("a.txt") ? "unsaved 1\nunsaved 2\n" : undefined,
    );
    files = handler({ unsavedText });
    expect(await read(`${tree.root}/a.txt`, { line: 2 })).toEqual({ content: "unsaved 2\n" });
    expect(unsavedText).toHaveBeenCalledWith(path.join(tree.root, "a.txt"), "s1");
    expect(await read(`${tree.root}/sub/b.txt`)).toEqual({ content: "root b\n" });
    await rejection(read(`${tree.outside}/a.txt`), -32602, "outside_roots");
    expect(unsavedText).toHaveBeenCalledTimes(2);
  });

  it("serves at most maxConcurrentReads reads at once; a cancelled one leaves the queue", async () => {
    // The editor's unsaved text arrives when the test says: each read in progress waits.
    // Reads reach the callback in any order (their checks run on the thread pool).
    const gates: { real: string; open: () => void }[] = [];
    const unsavedText = vi.fn(
      (real: string) =>
        new Promise<undefined>((resolve) => gates.push({ real, open: () => resolve(undefined) })),
    );
    files = handler({ unsavedText, maxConcurrentReads: 2 });
    const calls = (n: number) => vi.waitFor(() => expect(unsavedText).toHaveBeenCalledTimes(n));
    // Time for a third read to start if the limit did not hold (the checks before the
    // callback run on the thread pool).
    const pause = () => new Promise((resolve) => setTimeout(resolve, 100));
    const cancel = new AbortController();
    const context = { id: 3, method: "fs/read_text_file", signal: cancel.signal };
    const reads = [
      read(`${tree.root}/a.txt`),
      read(`${tree.root}/sub/b.txt`),
      files.readTextFile({ sessionId: "s1", path: `${tree.root}/a.txt` }, context),
      read(`${tree.root}/sub/b.txt`),
    ];
    await calls(2);
    await pause();
    expect(unsavedText).toHaveBeenCalledTimes(2);
    cancel.abort(new Error("cancelled by peer"));
    await expect(reads[2]).rejects.toThrow("cancelled by peer");
    gates.find((gate) => gate.real === path.join(tree.root, "a.txt"))?.open(); // the first read's
    await expect(reads[0]).resolves.toEqual({ content: "root a\n" });
    // The cancelled read never started; the fourth took the free slot.
    await calls(3);
    await pause();
    expect(unsavedText).toHaveBeenCalledTimes(3);
    for (const gate of gates) gate.open();
    await expect(reads[1]).resolves.toEqual({ content: "root b\n" });
    await expect(reads[3]).resolves.toEqual({ content: "root b\n" });
    expect(() => new FileSystemHandler({ maxConcurrentReads: 0 })).toThrow(RangeError);
    expect(() => new FileSystemHandler({ maxConcurrentReads: Infinity })).not.toThrow();
  });

  it("stops when the request is cancelled", async () => {
    const controller = new AbortController();
    controller.abort(new Error("cancelled by peer"));
    const context = { id: 1, method: "fs/read_text_file", signal: controller.signal };
    const p = { sessionId: "s1", path: `${tree.root}/a.txt` };
    await expect(files.readTextFile(p, context)).rejects.toThrow("cancelled by peer");
  });
});

describe.runIf(posix)("fs/write_text_file", () => {
  const tempFiles = async (dir: string) =>
    (await readdir(dir)).filter((name) => name.endsWith(".tmp"));

  it("creates and overwrites files, round-tripping any text", async () => {
    const p = path.join(tree.root, "new.txt");
    const text = "héllo\r\nwörld 🌍\n\0tail";
    expect(await write(p, text)).toEqual({});
    expect(await readFile(p, "utf8")).toBe(text);
    expect(await read(p)).toEqual({ content: text });
    await write(p, "");
    expect(await readFile(p, "utf8")).toBe("");
    expect(await tempFiles(tree.root)).toEqual([]);
  });

  it("keeps the permission bits (dropping setuid) and, as root, the owner", async () => {
    const p = path.join(tree.root, "a.txt");
    await chmod(p, 0o751);
    await write(p, "x");
    expect((await stat(p)).mode & 0o7777).toBe(0o751);
    await chmod(p, 0o4755);
    await write(p, "y");
    expect((await stat(p)).mode & 0o7777).toBe(0o755);
    if (process.getuid?.() === 0) {
      await chown(p, 1234, 5678);
      await write(p, "z");
      expect(await stat(p)).toMatchObject({ uid: 1234, gid: 5678 });
    }
  });

  it("refuses to replace a read-only file, even as root, and leaves it as it was", async () => {
    const p = path.join(tree.root, "locked.txt");
    await writeFile(p, "keep me\n");
    await chmod(p, 0o444);
    await expect(write(p, "changed")).rejects.toMatchObject({
      code: -32602,
      data: { reason: "read_only", path: p },
    });
    expect(await readFile(p, "utf8")).toBe("keep me\n");
    expect(await tempFiles(tree.root)).toEqual([]);
    await chmod(p, 0o644);
    await write(p, "changed");
    expect(await readFile(p, "utf8")).toBe("changed");
  });

  it("writes through a link inside the roots to its target, keeping the link", async () => {
    await symlink(path.join(tree.other, "o.txt"), path.join(tree.root, "to-o"));
    await write(`${tree.root}/to-o`, "via link\n");
    expect(await readFile(path.join(tree.other, "o.txt"), "utf8")).toBe("via link\n");
    expect(await readlink(path.join(tree.root, "to-o"))).toBe(path.join(tree.other, "o.txt"));
    await symlink(path.join(tree.root, "later.txt"), path.join(tree.root, "dangling-in"));
    await write(`${tree.root}/dangling-in`, "made\n");
    expect(await readFile(path.join(tree.root, "later.txt"), "utf8")).toBe("made\n");
    expect((await lstat(path.join(tree.root, "dangling-in"))).isSymbolicLink()).toBe(true);
  });

  it("refuses a missing directory unless createDirectories is set", async () => {
    const p = `${tree.root}/x/y/z.txt`;
    const e = await rejection(write(p, "z"), -32602, "parent_missing");
    expect(e.message).toContain(path.join(tree.root, "x", "y"));
    expect(e.message).toContain("createDirectories");
    await expect(stat(path.join(tree.root, "x"))).rejects.toThrow();
    const creating = handler({ createDirectories: true });
    await write(p, "z", creating);
    expect(await readFile(p, "utf8")).toBe("z");
    await rejection(write(`${tree.root}/link-dir/d/e.txt`, "z", creating), -32602, "outside_roots");
    await expect(stat(path.join(tree.outside, "d"))).rejects.toThrow();
  });

  it("refuses directories, non-directory parents, FIFOs and non-string content", async () => {
    await rejection(write(`${tree.root}/sub`, "x"), -32602, "is_directory");
    await rejection(write(tree.root, "x"), -32602, "is_directory");
    await rejection(write(`${tree.root}/a.txt/b.txt`, "x"), -32602, "parent_not_directory");
    execFileSync("mkfifo", [path.join(tree.root, "fifo")]);
    await rejection(write(`${tree.root}/fifo`, "x"), -32602, "not_regular_file");
    const bad = { sessionId: "s1", path: `${tree.root}/c.txt`, content: 1 as unknown as string };
    await rejection(files.writeTextFile(bad), -32602, "invalid_argument");
    expect(await tempFiles(tree.root)).toEqual([]);
  });

  it("is atomic: the target changes only at the rename, from a complete temporary file", async () => {
    const p = path.join(tree.root, "a.txt");
    const big = "0123456789abcdef\n".repeat(100_000);
    const rename = vi.mocked(fsp.rename);
    const seen: { target: string; temporary: string }[] = [];
    rename.mockImplementationOnce(async (from, to) => {
      seen.push({ target: await readFile(p, "utf8"), temporary: await readFile(from, "utf8") });
      expect(path.dirname(String(from))).toBe(tree.root);
      const original = await vi.importActual<typeof fsp>("node:fs/promises");
      await original.rename(from, to);
    });
    await write(p, big);
    expect(seen).toEqual([{ target: "root a\n", temporary: big }]);
    expect(await readFile(p, "utf8")).toBe(big);
  });

  it("removes the temporary file and keeps the target when the write fails", async () => {
    const p = path.join(tree.root, "a.txt");
    vi.mocked(fsp.rename).mockRejectedValueOnce(
      Object.assign(new Error("EIO: i/o error, rename"), { code: "EIO" }),
    );
    const e = await rejection(write(p, "new content"), -32603, "system_error");
    expect(e.data).toMatchObject({ code: "EIO", path: p });
    expect(e.message).toMatch(/input\/output error/);
    expect(await readFile(p, "utf8")).toBe("root a\n");
    expect(await tempFiles(tree.root)).toEqual([]);
  });

  it("changes nothing when cancelled before the rename", async () => {
    const controller = new AbortController();
    controller.abort(new Error("cancelled by peer"));
    const context = { id: 1, method: "fs/write_text_file", signal: controller.signal };
    const p = { sessionId: "s1", path: `${tree.root}/a.txt`, content: "new" };
    await expect(files.writeTextFile(p, context)).rejects.toThrow("cancelled by peer");
    expect(await readFile(path.join(tree.root, "a.txt"), "utf8")).toBe("root a\n");
    expect(await tempFiles(tree.root)).toEqual([]);
  });

  it("settles concurrent writes to one file with one complete content", async () => {
    const p = path.join(tree.root, "a.txt");
    const contents = Array.from({ length: 8 }, (_, i) => `${String(i)}\n`.repeat(10_000));
    await Promise.all(contents.map((c) => write(p, c)));
    expect(contents).toContain(await readFile(p, "utf8"));
    expect(await tempFiles(tree.root)).toEqual([]);
  });
});

describe.runIf(posix)("as a Client over a connection", () => {
  it("answers the agent's fs calls, errors included", async () => {
    const pair = memoryStreamPair();
    new ClientSideConnection(
      () => ({
        requestPermission: () => ({ outcome: { outcome: "cancelled" } }),
        sessionUpdate: () => undefined,
        readTextFile: (p) => files.readTextFile(p),
        writeTextFile: (p) => files.writeTextFile(p),
      }),
      pair.client,
    );
    const agentSide = new AgentSideConnection(
      () => ({
        initialize: () => ({ protocolVersion: 1 }),
        newSession: () => ({ sessionId: "s1" }),
        authenticate: () => undefined,
        prompt: () => ({ stopReason: "end_turn" }),
        cancel: () => undefined,
      }),
      pair.agent,
    );
    const p = `${tree.root}/over-the-wire.txt`;
    await agentSide.writeTextFile({ sessionId: "s1", path: p, content: "a\nb\n" });
    const got = await agentSide.readTextFile({ sessionId: "s1", path: p, line: 2 });
    expect(got).toEqual({ content: "b\n" });
    const missing = `${tree.root}/missing.txt`;
    await expect(agentSide.readTextFile({ sessionId: "s1", path: missing })).rejects.toMatchObject({
      code: -32002,
      data: { uri: missing, path: missing },
    });
    await expect(
      agentSide.readTextFile({ sessionId: "s1", path: `${tree.root}/link-file` }),
    ).rejects.toMatchObject({ code: -32602, data: { reason: "outside_roots" } });
  });
});
