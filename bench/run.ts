/**
 * acp-kit benchmark: `npm run bench` (= build, then
 * `node --expose-gc --import tsx bench/run.ts`). See bench/README.md.
 *
 * S1, S2, S2c and S4 run as cells: one scenario, one implementation, one size and one
 * message size in a fresh process (`scenarios/cell.ts`), without warm-up, the first
 * timed run counted. Each scenario is reported under every setting (size, message size,
 * first run or median), and its verdict is the worst of them.
 *
 * Options (flags or env):
 *   --kit=<spec> | ACP_KIT_MODULE   module providing the classic API for the
 *                                   acp-kit column (default: acp-kit's dist build,
 *                                   falling back to acp-sdk-classic if unbuilt)
 *   --runs=<n>   | BENCH_RUNS       timed runs per cell process (default 3; S3: runs)
 *   --rounds=<n> | BENCH_ROUNDS     processes per cell, in rotating order (default 3)
 *   --only=S1,S3 | BENCH_ONLY       subset of S1,S1v2,S2,S2c,S3,S4,S4v2,import (S1v2, S4v2: S1, S4 as ACP v2,
 *                                   acp-kit's v2 sides against the official v2 builders)
 *   --sizes=50000,100000            updates per S1/S4 turn (BENCH_SIZES)
 *   --chars=41,1000                 text characters per update in S1/S4 (BENCH_CHARS)
 *   --warmup=<fraction>             a warm-up run of this fraction of the size first
 *                                   (default 0: none, as a fresh program runs)
 *   --impls=kit,rawc                only these implementations (the others show n/a)
 *   --quick                         small sizes, 1 run: a smoke test, not a measurement
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { median } from "./lib/common.ts";
import { builtKitUrl, loadKitModule, REPO_ROOT } from "./lib/kit-module.ts";
import { coldImport, type ColdImport } from "./lib/cold-import.ts";
import type { BigReadSample } from "./scenarios/big-read-child.ts";
import type { CellSamples } from "./scenarios/cell.ts";

// ---------------------------------------------------------------- options

function option(name: string, env: string): string | undefined {
  const flag = process.argv.find((a) => a.startsWith(`--${name}=`));
  return flag?.slice(name.length + 3) ?? process.env[env];
}

const list = (text: string): number[] => text.split(",").map(Number);

const quick = process.argv.includes("--quick");
const only = new Set((option("only", "BENCH_ONLY") ?? "S1,S1v2,S2,S2c,S3,S4,import").split(","));
const runsOption = option("runs", "BENCH_RUNS");
/** Timed runs per cell process. */
const RUNS = quick ? 1 : Number(runsOption ?? 3);
/** Processes per cell. */
const ROUNDS = quick ? 1 : Number(option("rounds", "BENCH_ROUNDS") ?? 3);
const WARMUP = Number(option("warmup", "BENCH_WARMUP") ?? 0);
/** Updates per turn in S1 and S4. */
const STREAM_SIZES = list(option("sizes", "BENCH_SIZES") ?? (quick ? "10000" : "50000,100000"));
/** Text characters per update in S1 and S4. */
const CHARS = list(option("chars", "BENCH_CHARS") ?? (quick ? "41" : "41,1000"));
const SIZES = quick
  ? { s2: 2_000, s2c: 2_000, inFlight: 100, s3: 2 * 1024 * 1024 }
  : { s2: 20_000, s2c: 20_000, inFlight: 1_000, s3: 20 * 1024 * 1024 };
const S3_RUNS = quick ? 1 : Number(runsOption ?? 5);
const COLD_IMPORT_RUNS = quick ? 3 : 7;

type Key = "kit" | "official" | "raw" | "rawc";
const KEYS: readonly Key[] = ["kit", "official", "raw", "rawc"];
/** What acp-kit is compared with, in the table's order. */
type Other = Exclude<Key, "kit">;
const OTHERS: readonly Other[] = ["rawc", "raw", "official"];
const LABELS: Record<Key, string> = {
  kit: "acp-kit",
  official: "official 2.4.0",
  raw: "raw ndjson",
  rawc: "raw coalescing",
};

/** The implementations measured. */
const IMPLS = new Set(option("impls", "BENCH_IMPLS")?.split(",") ?? KEYS);

// ---------------------------------------------------------------- measurement

/** One cell's samples: per process, its timed runs in order. */
interface CellResult {
  ms: number[][];
  /** CPU time per run, per process (for S4 the client's and the agent's). */
  cpuMs: number[][];
  /** S1/S4: updates the client had handled when prompt resolved, per run. */
  receivedAtResolve: number[];
}

/** S3's samples. */
interface Samples {
  ms: number[];
  rssDeltaBytes?: number[];
  heapDeltaBytes?: number[];
  rssPeakFromOp?: boolean[];
}

type ScenarioSamples = Record<Key, Samples>;

/** One setting of a scenario (a size and, for S1/S4, a message size) and its cells. */
interface SettingResult {
  label: string;
  size: number;
  chars?: number;
  cells: Record<Key, CellResult>;
}

/** Rotates the implementation order each round so none always runs first (or right after a GC-heavy peer). */
const order = (round: number): Key[] => {
  const r = round % KEYS.length;
  return [...KEYS.slice(r), ...KEYS.slice(0, r)];
};

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

function runChild<T>(script: string, args: string[], env: Record<string, string>): Promise<T> {
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      ["--expose-gc", "--import", "tsx", resolve(REPO_ROOT, script), ...args],
      { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, ...env } },
    );
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.on("error", fail);
    child.on("exit", (code) => {
      if (code !== 0) fail(new Error(`${script} ${args.join(" ")} exited with ${code}`));
      else done(JSON.parse(out) as T);
    });
  });
}

/**
 * Runs every cell of one scenario: for each setting and implementation, `ROUNDS` fresh
 * processes of `RUNS` timed runs each. Rounds are the outer loop and the implementation
 * order rotates, so that machine drift spreads evenly over the implementations.
 */
async function cells(
  scenario: "S1" | "S1v2" | "S2" | "S2c" | "S4" | "S4v2",
  kitUrl: string,
  settings: { size: number; chars?: number }[],
  inFlight?: number,
  keys: readonly Key[] = KEYS,
): Promise<SettingResult[]> {
  const results: SettingResult[] = settings.map(({ size, chars }) => ({
    label: chars === undefined ? `${size}` : `${size} x ${chars} ch`,
    size,
    ...(chars === undefined ? {} : { chars }),
    cells: {
      kit: { ms: [], cpuMs: [], receivedAtResolve: [] },
      official: { ms: [], cpuMs: [], receivedAtResolve: [] },
      raw: { ms: [], cpuMs: [], receivedAtResolve: [] },
      rawc: { ms: [], cpuMs: [], receivedAtResolve: [] },
    },
  }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const setting of results) {
      for (const key of order(round).filter((k) => IMPLS.has(k) && keys.includes(k))) {
        const args = [
          scenario,
          key,
          String(RUNS),
          String(setting.size),
          String(Math.round(setting.size * WARMUP)),
        ];
        if (inFlight !== undefined) args.push(String(inFlight));
        const env: Record<string, string> = { ACP_KIT_MODULE: kitUrl };
        if (setting.chars !== undefined) env.BENCH_CHUNK_CHARS = String(setting.chars);
        const r = await runChild<CellSamples>("bench/scenarios/cell.ts", args, env);
        setting.cells[key].ms.push(r.ms);
        setting.cells[key].cpuMs.push(r.cpuMs);
        setting.cells[key].receivedAtResolve.push(...(r.receivedAtResolve ?? []));
      }
    }
    log(`${scenario}: round ${round + 1}/${ROUNDS} done`);
  }
  return results;
}

async function bigRead(kitUrl: string): Promise<ScenarioSamples> {
  const samples: ScenarioSamples = {
    kit: { ms: [] },
    official: { ms: [] },
    raw: { ms: [] },
    rawc: { ms: [] },
  };
  for (let round = 0; round < S3_RUNS; round++) {
    for (const key of order(round).filter((k) => IMPLS.has(k))) {
      const r = await runChild<BigReadSample>(
        "bench/scenarios/big-read-child.ts",
        [key, String(SIZES.s3)],
        { ACP_KIT_MODULE: kitUrl },
      );
      const s = samples[key];
      s.ms.push(r.ms);
      (s.rssDeltaBytes ??= []).push(r.rssDeltaBytes);
      (s.heapDeltaBytes ??= []).push(r.heapDeltaBytes);
      (s.rssPeakFromOp ??= []).push(r.rssPeakFromOp);
    }
    log(`S3: round ${round + 1}/${S3_RUNS} done`);
  }
  return samples;
}

// ---------------------------------------------------------------- report

interface Row {
  label: string;
  /** The scenario the row belongs to: its verdict is its worst row's. */
  scenario: string;
  unit: string;
  /** true: bigger is better (rates); false: smaller is better (ms, MB). */
  higherIsBetter: boolean;
  values: Record<Key, number>;
  spread: Record<Key, number>;
  targets?: Partial<Record<Other, number>>;
  warn?: string;
}

const MB = 1024 * 1024;

function spreadOf(xs: readonly number[]): number {
  const m = median(xs);
  return xs.length < 2 || m === 0 ? 0 : (Math.max(...xs) - Math.min(...xs)) / m;
}

function perKey(f: (k: Key) => number): Record<Key, number> {
  return { kit: f("kit"), official: f("official"), raw: f("raw"), rawc: f("rawc") };
}

/** Which runs a row counts: each process's first timed run, or all its runs. */
type Stat = "first" | "all";
const STAT_LABELS: Record<Stat, string> = { first: "first run", all: "median" };

/** Wall-clock time (what the harness measured) or CPU time (steadier on a loaded machine). */
type Clock = "wall" | "cpu";

function statSamples(cell: CellResult, stat: Stat, clock: Clock): number[] {
  const runs = clock === "wall" ? cell.ms : cell.cpuMs;
  return stat === "first" ? runs.flatMap((r) => r.slice(0, 1)) : runs.flat();
}

/**
 * Two rows per setting: the first timed run of each process (median over the processes)
 * and the median of all runs, first included.
 */
function settingRows(
  scenario: string,
  unit: string,
  settings: SettingResult[],
  targets: Row["targets"],
  countsUpdates: boolean,
  clock: Clock = "wall",
): Row[] {
  const rows: Row[] = [];
  for (const setting of settings) {
    for (const stat of ["first", "all"] as const) {
      const samples = (k: Key): number[] => statSamples(setting.cells[k], stat, clock);
      const row: Row = {
        label: `${scenario} ${setting.label}, ${STAT_LABELS[stat]}`,
        scenario: clock === "wall" ? scenario : `${scenario} cpu`,
        unit,
        higherIsBetter: true,
        values: perKey((k) => setting.size / (median(samples(k)) / 1000)),
        spread: perKey((k) => spreadOf(samples(k))),
        targets,
      };
      const short = countsUpdates
        ? KEYS.filter((k) => setting.cells[k].receivedAtResolve.some((c) => c !== setting.size))
        : [];
      if (short.length > 0 && stat === "first" && clock === "wall") {
        row.warn = `${scenario} ${setting.label}: prompt resolved before all ${setting.size} updates were handled for: ${short
          .map((k) => `${k} (${setting.cells[k].receivedAtResolve.join(", ")})`)
          .join("; ")}`;
      }
      rows.push(row);
    }
  }
  return rows;
}

function fmtValue(v: number, unit: string): string {
  if (!Number.isFinite(v)) return "n/a";
  if (unit.includes("/")) return v >= 1e6 ? `${(v / 1e6).toFixed(2)}M` : `${(v / 1e3).toFixed(1)}k`;
  if (unit === "MB") return v.toFixed(1);
  return v >= 100 ? v.toFixed(0) : v.toFixed(1);
}

const ratioOf = (row: Row, other: Other): number => row.values.kit / row.values[other];

function ratio(row: Row, other: Other): { text: string; pass?: boolean } {
  const r = ratioOf(row, other);
  if (!Number.isFinite(r)) return { text: "n/a" };
  const target = row.targets?.[other];
  if (target === undefined) return { text: `${r.toFixed(2)}x` };
  const pass = row.higherIsBetter ? r >= target : r <= target;
  return {
    text: `${r.toFixed(2)}x ${pass ? "ok" : "MISS"} (${row.higherIsBetter ? ">=" : "<="}${target})`,
    pass,
  };
}

function printTable(rows: Row[], kitLabel: string, title: string): void {
  const header = [
    "scenario",
    "unit",
    ...KEYS.map((k) => LABELS[k]),
    "kit/raw coalescing",
    "kit/raw",
    "kit/official",
  ];
  const body = rows.map((row) => [
    row.label,
    row.unit + (row.higherIsBetter ? " ^" : " v"),
    ...KEYS.map((k) => `${fmtValue(row.values[k], row.unit)} ±${(row.spread[k] * 50).toFixed(0)}%`),
    ...OTHERS.map((k) => ratio(row, k).text),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]): string =>
    cells.map((c, i) => (i < 2 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  console.log(`\n${title}; acp-kit column = ${kitLabel}`);
  console.log(
    `^ higher is better, v lower is better; value = median of the runs counted, ±half their min-max range. S1/S2/S2c/S4: ${ROUNDS} fresh processes per cell, ${RUNS} timed runs each, ${WARMUP > 0 ? `after a warm-up of ${WARMUP} of the size` : "no warm-up"}; "first run" counts each process's first timed run, "median" all runs`,
  );
  console.log(
    "ratios: acp-kit's value over the coalescing raw loop's, the plain raw loop's and the official SDK's (throughput: >1 means acp-kit faster; ms/MB: <1 means acp-kit smaller)\n",
  );
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const cells of body) console.log(line(cells));
}

/**
 * One line per scenario and target: the worst ratio over its rows (every setting and
 * statistic), which is the scenario's verdict.
 */
function printWorst(
  rows: Row[],
): { scenario: string; other: Other; ratio: number; row: string; pass: boolean }[] {
  const verdicts: { scenario: string; other: Other; ratio: number; row: string; pass: boolean }[] =
    [];
  const scenarios = [...new Set(rows.map((r) => r.scenario))];
  for (const scenario of scenarios) {
    const mine = rows.filter((r) => r.scenario === scenario && r.targets !== undefined);
    for (const other of OTHERS) {
      const withTarget = mine.filter((r) => r.targets?.[other] !== undefined);
      if (withTarget.length === 0) continue;
      const worst = withTarget.reduce((w, r) => {
        const better = r.higherIsBetter
          ? ratioOf(r, other) < ratioOf(w, other)
          : ratioOf(r, other) > ratioOf(w, other);
        return better ? r : w;
      });
      const target = worst.targets?.[other] ?? 0;
      const r = ratioOf(worst, other);
      if (Number.isNaN(r)) continue; // not measured (--impls)
      const pass = worst.higherIsBetter ? r >= target : r <= target;
      verdicts.push({ scenario, other, ratio: r, row: worst.label, pass });
    }
  }
  console.log(
    "\nverdict per scenario: the worst of its settings (size, message size, first run or median)\n",
  );
  for (const v of verdicts) {
    const target = rows.find((r) => r.scenario === v.scenario)?.targets?.[v.other];
    console.log(
      `  ${v.scenario.padEnd(8)} vs ${LABELS[v.other].padEnd(15)} ${v.ratio.toFixed(2)}x ${v.pass ? "ok  " : "MISS"} (target ${target}; worst at ${v.row})`,
    );
  }
  return verdicts;
}

// ---------------------------------------------------------------- main

const started = performance.now();
const kit = await loadKitModule();

console.log(`acp-kit benchmark — node ${process.version}, ${process.platform}/${process.arch}`);
console.log(`acp-kit column: ${kit.label}`);
console.log(`  module: ${kit.url}`);
if (kit.fellBack) console.log("  WARNING: dist/ is not built; these are NOT acp-kit numbers.");
if (!(globalThis as { gc?: unknown }).gc)
  console.log("  WARNING: run with --expose-gc; no GC between runs.");
if (quick) console.log("  --quick: reduced sizes, 1 run; not a measurement.");
console.log(
  `cells (S1, S2, S2c, S4): ${ROUNDS} fresh processes each, ${RUNS} timed runs per process, ${WARMUP > 0 ? `warm-up ${WARMUP} of the size` : "no warm-up"}, first run counted; S1/S4 sizes ${STREAM_SIZES.join(", ")} x ${CHARS.join(", ")} characters of text; S3 ${S3_RUNS} processes; cold import ${COLD_IMPORT_RUNS}`,
);
console.log(
  `  loadavg at start: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);

const results: Partial<Record<"S1" | "S1v2" | "S2" | "S2c" | "S4" | "S4v2", SettingResult[]>> & {
  S3?: ScenarioSamples;
} = {};
const rows: Row[] = [];
const streamSettings = STREAM_SIZES.flatMap((size) => CHARS.map((chars) => ({ size, chars })));

if (only.has("S1")) {
  const s = await cells("S1", kit.url, streamSettings);
  results.S1 = s;
  rows.push(...settingRows("S1", "msg/s", s, { rawc: 0.9, official: 5 }, true));
  rows.push(...settingRows("S1", "msg/cpu-s", s, { rawc: 0.9, official: 5 }, false, "cpu"));
}
if (only.has("S1v2")) {
  // ACP v2: acp-kit's v2 sides against the official v2 builders (no raw loops: they would
  // be the same as S1's).
  const s = await cells("S1v2", kit.url, streamSettings, undefined, ["kit", "official"]);
  results.S1v2 = s;
  rows.push(...settingRows("S1v2", "msg/s", s, { official: 5 }, true));
  rows.push(...settingRows("S1v2", "msg/cpu-s", s, { official: 5 }, false, "cpu"));
}
if (only.has("S2")) {
  const s = await cells("S2", kit.url, [{ size: SIZES.s2 }]);
  results.S2 = s;
  rows.push(...settingRows("S2", "req/s", s, { raw: 1.0 }, false));
  rows.push(...settingRows("S2", "req/cpu-s", s, { raw: 1.0 }, false, "cpu"));
}
if (only.has("S2c")) {
  const s = await cells("S2c", kit.url, [{ size: SIZES.s2c }], SIZES.inFlight);
  results.S2c = s;
  rows.push(...settingRows("S2c", "req/s", s, { rawc: 0.9, official: 5 }, false));
  rows.push(...settingRows("S2c", "req/cpu-s", s, { rawc: 0.9, official: 5 }, false, "cpu"));
}
if (only.has("S3")) {
  log("S3: one child process per run");
  const s = await bigRead(kit.url);
  results.S3 = s;
  const mib = SIZES.s3 / MB;
  rows.push({
    label: `S3 ${mib} MiB read: time`,
    scenario: "S3",
    unit: "ms",
    higherIsBetter: false,
    values: perKey((k) => median(s[k].ms)),
    spread: perKey((k) => spreadOf(s[k].ms)),
    targets: { raw: 1.1 },
  });
  const rssNotRaised = KEYS.filter((k) => s[k].rssPeakFromOp?.some((b) => !b));
  rows.push({
    label: `S3 ${mib} MiB read: peak RSS delta`,
    scenario: "S3",
    unit: "MB",
    higherIsBetter: false,
    values: perKey((k) => median(s[k].rssDeltaBytes ?? []) / MB),
    spread: perKey((k) => spreadOf(s[k].rssDeltaBytes ?? [])),
    targets: { raw: 1.1 },
    ...(rssNotRaised.length > 0
      ? {
          warn: `S3: the read did not raise the process's peak RSS for ${rssNotRaised.join(", ")} in some runs; their RSS delta is a lower bound`,
        }
      : {}),
  });
  rows.push({
    label: `S3 ${mib} MiB read: heap+ext delta (sampled)`,
    scenario: "S3",
    unit: "MB",
    higherIsBetter: false,
    values: perKey((k) => median(s[k].heapDeltaBytes ?? []) / MB),
    spread: perKey((k) => spreadOf(s[k].heapDeltaBytes ?? [])),
  });
}
if (only.has("S4")) {
  const s = await cells("S4", kit.url, streamSettings);
  results.S4 = s;
  rows.push(...settingRows("S4", "msg/s", s, { rawc: 0.9, official: 5 }, true));
  rows.push(...settingRows("S4", "msg/cpu-s", s, { rawc: 0.9, official: 5 }, false, "cpu"));
}
if (only.has("S4v2")) {
  const s = await cells("S4v2", kit.url, streamSettings, undefined, ["kit", "official"]);
  results.S4v2 = s;
  rows.push(...settingRows("S4v2", "msg/s", s, { official: 5 }, true));
  rows.push(...settingRows("S4v2", "msg/cpu-s", s, { official: 5 }, false, "cpu"));
}

let cold: Record<string, ColdImport | string> | undefined;
if (only.has("import")) {
  log("cold import");
  cold = {};
  if (builtKitUrl()) cold["acp-kit"] = coldImport("acp-kit", COLD_IMPORT_RUNS);
  else cold["acp-kit"] = "skipped: dist/ not built";
  cold["@agentclientprotocol/sdk 2.4.0"] = coldImport("@agentclientprotocol/sdk", COLD_IMPORT_RUNS);
  cold["acp-sdk-classic 1.9.0"] = coldImport("acp-sdk-classic", COLD_IMPORT_RUNS);
}

const wallRows = rows.filter((r) => !r.scenario.endsWith(" cpu"));
const cpuRows = rows.filter((r) => r.scenario.endsWith(" cpu"));
printTable(wallRows, kit.label, "WALL-CLOCK TIME (as the independent harness measured)");
if (cpuRows.length > 0) {
  printTable(
    cpuRows,
    kit.label,
    "CPU TIME of the same runs (user + system, all threads; S4: client and agent processes), values = updates or requests per CPU second: steadier than wall-clock time on a loaded machine",
  );
}
const verdicts = printWorst(rows);
if (cold) {
  console.log(
    `\ncold import (fresh node per sample, median of ${COLD_IMPORT_RUNS}; target for acp-kit < 50 ms):`,
  );
  for (const [name, r] of Object.entries(cold)) {
    if (typeof r === "string") console.log(`  ${name.padEnd(32)} ${r}`);
    else {
      const verdict = name === "acp-kit" ? (r.medianMs < 50 ? "  ok" : "  MISS") : "";
      console.log(`  ${name.padEnd(32)} ${r.medianMs.toFixed(1)} ms${verdict}`);
    }
  }
}
const warnings = rows.flatMap((r) => (r.warn ? [r.warn] : []));
if (warnings.length > 0) console.log(`\nWARNINGS:\n  ${warnings.join("\n  ")}`);
if (kit.fellBack || kit.label.includes("acp-sdk-classic")) {
  console.log(
    "\nnote: the acp-kit column is the acp-sdk-classic stand-in; ok/MISS refer to acp-kit's targets.",
  );
}
const totalSeconds = (performance.now() - started) / 1000;
console.log(
  `\ntotal benchmark time: ${totalSeconds.toFixed(1)} s; loadavg at end: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);

const outDir = resolve(REPO_ROOT, "bench", "results");
mkdirSync(outDir, { recursive: true });
writeFileSync(
  resolve(outDir, "latest.json"),
  JSON.stringify(
    {
      date: new Date().toISOString(),
      node: process.version,
      kit: { label: kit.label, url: kit.url, fellBack: kit.fellBack },
      quick,
      loadavgAtEnd: loadavg(),
      sizes: { ...SIZES, stream: STREAM_SIZES, chars: CHARS },
      runs: { perProcess: RUNS, rounds: ROUNDS, warmup: WARMUP, s3: S3_RUNS },
      verdicts,
      totalSeconds,
      table: rows,
      samples: results,
      coldImport: cold,
    },
    null,
    2,
  ) + "\n",
);
console.log(`results: bench/results/latest.json`);
