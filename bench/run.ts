/**
 * acp-kit benchmark: `npm run bench` (= build, then
 * `node --expose-gc --import tsx bench/run.ts`). See bench/README.md.
 *
 * Options (flags or env):
 *   --kit=<spec> | ACP_KIT_MODULE   module providing the classic API for the
 *                                   acp-kit column (default: acp-kit's dist build,
 *                                   falling back to acp-sdk-classic if unbuilt)
 *   --runs=<n>   | BENCH_RUNS       timed runs per scenario and implementation
 *   --only=S1,S3 | BENCH_ONLY       subset of S1,S2,S2c,S3,S4,import
 *   --quick                         small sizes, 1 run: a smoke test, not a measurement
 *   --interleaved                   run S1/S2/S2c in this process, alternating
 *                                   implementations (default: a fresh process each)
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fullGc, median, type Impl, type StreamResult, type TimedResult } from "./lib/common.ts";
import { builtKitUrl, loadKitModule, REPO_ROOT } from "./lib/kit-module.ts";
import { coldImport, type ColdImport } from "./lib/cold-import.ts";
import { makeKitImpl } from "./scenarios/kit.ts";
import { officialImpl } from "./scenarios/official.ts";
import { rawCoalescingImpl, rawImpl } from "./scenarios/raw.ts";
import { startStdioSession, type StdioImpl } from "./scenarios/stdio.ts";
import type { BigReadSample } from "./scenarios/big-read-child.ts";
import type { InProcessSamples } from "./scenarios/in-process-child.ts";

// ---------------------------------------------------------------- options

function option(name: string, env: string): string | undefined {
  const flag = process.argv.find((a) => a.startsWith(`--${name}=`));
  return flag?.slice(name.length + 3) ?? process.env[env];
}

const quick = process.argv.includes("--quick");
const runsOverride = option("runs", "BENCH_RUNS");
const only = new Set((option("only", "BENCH_ONLY") ?? "S1,S2,S2c,S3,S4,import").split(","));

const SIZES = quick
  ? { s1: 10_000, s2: 2_000, s2c: 2_000, inFlight: 100, s3: 2 * 1024 * 1024, s4: 10_000 }
  : { s1: 100_000, s2: 20_000, s2c: 20_000, inFlight: 1_000, s3: 20 * 1024 * 1024, s4: 100_000 };
const runs = (fallback: number): number => (quick ? 1 : Number(runsOverride ?? fallback));
const RUNS = {
  s1: runs(9),
  s2: runs(9),
  s2c: runs(9),
  s3: runs(5),
  s4: runs(5),
  coldImport: quick ? 3 : 7,
};

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

// ---------------------------------------------------------------- measurement

interface Samples {
  ms: number[];
  /** S1/S4: updates the client had handled when prompt resolved, per run. */
  receivedAtResolve?: number[];
  /** S3 only. */
  rssDeltaBytes?: number[];
  heapDeltaBytes?: number[];
  rssPeakFromOp?: boolean[];
}

type ScenarioSamples = Record<Key, Samples>;

const emptySamples = (): ScenarioSamples => ({
  kit: { ms: [] },
  official: { ms: [] },
  raw: { ms: [] },
  rawc: { ms: [] },
});

/** Rotates the implementation order each round so none always runs first (or right after a GC-heavy peer). */
const order = (round: number): Key[] => {
  const r = round % KEYS.length;
  return [...KEYS.slice(r), ...KEYS.slice(0, r)];
};

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

const interleaved = process.argv.includes("--interleaved");
/** Rounds of fresh processes per isolated scenario. */
const ISOLATED_ROUNDS = 3;

/** Runs one in-process scenario for one implementation in a fresh child process. */
function runInProcessChild(
  kitUrl: string,
  args: [scenario: string, key: Key, runs: number, size: number, warmup: number, inFlight?: number],
): Promise<InProcessSamples> {
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      [
        "--expose-gc",
        "--import",
        "tsx",
        resolve(REPO_ROOT, "bench/scenarios/in-process-child.ts"),
        ...args.map(String),
      ],
      {
        cwd: REPO_ROOT,
        stdio: ["ignore", "pipe", "inherit"],
        env: { ...process.env, ACP_KIT_MODULE: kitUrl },
      },
    );
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.on("error", fail);
    child.on("exit", (code) => {
      if (code !== 0) fail(new Error(`${args[0]} child for ${args[1]} exited with ${code}`));
      else done(JSON.parse(out) as InProcessSamples);
    });
  });
}

/**
 * In-process scenario, isolated (the default): each implementation runs in fresh
 * processes of its own (a warm-up, then timed runs). To spread machine drift evenly, the
 * runs are split over `ISOLATED_ROUNDS` rounds, each starting one process per
 * implementation, in a rotating order.
 */
async function isolated(
  name: string,
  kitUrl: string,
  runCount: number,
  size: number,
  warmup: number,
  inFlight?: number,
): Promise<ScenarioSamples> {
  const samples = emptySamples();
  const rounds = Math.min(ISOLATED_ROUNDS, runCount);
  const perChild = Math.ceil(runCount / rounds);
  for (let round = 0; round < rounds; round++) {
    for (const key of order(round)) {
      const args: [string, Key, number, number, number, number?] = [
        name,
        key,
        perChild,
        size,
        warmup,
      ];
      if (inFlight !== undefined) args.push(inFlight);
      const r = await runInProcessChild(kitUrl, args);
      samples[key].ms.push(...r.ms);
      if (r.receivedAtResolve) (samples[key].receivedAtResolve ??= []).push(...r.receivedAtResolve);
    }
    log(`${name}: round ${round + 1}/${rounds} done`);
  }
  return samples;
}

/**
 * In-process scenario, `--interleaved`: one warm-up per implementation at `warmupArg`,
 * then `rounds` interleaved rounds in this process, a full GC before every timed run.
 */
async function inProcess<A>(
  name: string,
  impls: Record<Key, Impl>,
  rounds: number,
  arg: A,
  warmupArg: A,
  fn: (impl: Impl, arg: A) => Promise<TimedResult | StreamResult>,
): Promise<ScenarioSamples> {
  const samples = emptySamples();
  log(`${name}: warm-up`);
  for (const key of KEYS) await fn(impls[key], warmupArg);
  for (let round = 0; round < rounds; round++) {
    for (const key of order(round)) {
      fullGc();
      const r = await fn(impls[key], arg);
      samples[key].ms.push(r.ms);
      if ("receivedAtResolve" in r)
        (samples[key].receivedAtResolve ??= []).push(r.receivedAtResolve);
    }
    log(`${name}: round ${round + 1}/${rounds} done`);
  }
  return samples;
}

function runBigReadChild(key: Key, kitUrl: string, chars: number): Promise<BigReadSample> {
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      [
        "--expose-gc",
        "--import",
        "tsx",
        resolve(REPO_ROOT, "bench/scenarios/big-read-child.ts"),
        key,
        String(chars),
      ],
      {
        cwd: REPO_ROOT,
        stdio: ["ignore", "pipe", "inherit"],
        env: { ...process.env, ACP_KIT_MODULE: kitUrl },
      },
    );
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.on("error", fail);
    child.on("exit", (code) => {
      if (code !== 0) fail(new Error(`S3 child for ${key} exited with ${code}`));
      else done(JSON.parse(out) as BigReadSample);
    });
  });
}

async function bigRead(kitUrl: string): Promise<ScenarioSamples> {
  const samples = emptySamples();
  for (let round = 0; round < RUNS.s3; round++) {
    for (const key of order(round)) {
      const r = await runBigReadChild(key, kitUrl, SIZES.s3);
      const s = samples[key];
      s.ms.push(r.ms);
      (s.rssDeltaBytes ??= []).push(r.rssDeltaBytes);
      (s.heapDeltaBytes ??= []).push(r.heapDeltaBytes);
      (s.rssPeakFromOp ??= []).push(r.rssPeakFromOp);
    }
    log(`S3: round ${round + 1}/${RUNS.s3} done`);
  }
  return samples;
}

async function stdio(kit: Parameters<typeof startStdioSession>[1]): Promise<ScenarioSamples> {
  const samples = emptySamples();
  // One child per implementation, kept for all its runs; implementations run
  // one after another (two children at once would compete for the 2 cores).
  for (const key of KEYS) {
    const session = await startStdioSession(key satisfies StdioImpl, kit);
    try {
      await session.prompt(Math.ceil(SIZES.s4 / 4)); // warm-up, both processes
      for (let i = 0; i < RUNS.s4; i++) {
        await session.childGc();
        fullGc();
        const r = await session.prompt(SIZES.s4);
        samples[key].ms.push(r.ms);
        (samples[key].receivedAtResolve ??= []).push(r.receivedAtResolve);
      }
    } finally {
      await session.close();
    }
    log(`S4: ${key} done`);
  }
  return samples;
}

// ---------------------------------------------------------------- report

interface Row {
  label: string;
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

function perKey(s: ScenarioSamples, f: (x: Samples) => number): Record<Key, number> {
  return { kit: f(s.kit), official: f(s.official), raw: f(s.raw), rawc: f(s.rawc) };
}

function rateRow(label: string, s: ScenarioSamples, n: number, targets?: Row["targets"]): Row {
  const row: Row = {
    label,
    unit: "msg/s",
    higherIsBetter: true,
    values: perKey(s, (x) => n / (median(x.ms) / 1000)),
    spread: perKey(s, (x) => spreadOf(x.ms)),
  };
  if (targets) row.targets = targets;
  const short = KEYS.filter((k) => s[k].receivedAtResolve?.some((c) => c !== n));
  if (short.length > 0) {
    row.warn = `${label}: prompt resolved before all ${n} updates were handled for: ${short
      .map((k) => `${k} (${(s[k].receivedAtResolve ?? []).join(", ")})`)
      .join("; ")}`;
  }
  return row;
}

function fmtValue(v: number, unit: string): string {
  if (!Number.isFinite(v)) return "n/a";
  if (unit.endsWith("/s"))
    return v >= 1e6 ? `${(v / 1e6).toFixed(2)}M` : `${(v / 1e3).toFixed(1)}k`;
  if (unit === "MB") return v.toFixed(1);
  return v >= 100 ? v.toFixed(0) : v.toFixed(1);
}

function ratio(row: Row, other: Other): { text: string; pass?: boolean } {
  const r = row.values.kit / row.values[other];
  if (!Number.isFinite(r)) return { text: "n/a" };
  const target = row.targets?.[other];
  if (target === undefined) return { text: `${r.toFixed(2)}x` };
  const pass = row.higherIsBetter ? r >= target : r <= target;
  return {
    text: `${r.toFixed(2)}x ${pass ? "ok" : "MISS"} (${row.higherIsBetter ? ">=" : "<="}${target})`,
    pass,
  };
}

function printTable(rows: Row[], kitLabel: string): void {
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
  console.log(`\nacp-kit column = ${kitLabel}`);
  console.log(
    "^ higher is better, v lower is better; value = median of runs, ±half the min-max range",
  );
  console.log(
    "ratios: acp-kit's value over the coalescing raw loop's, the plain raw loop's and the official SDK's (throughput: >1 means acp-kit faster; ms/MB: <1 means acp-kit smaller)\n",
  );
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const cells of body) console.log(line(cells));
}

// ---------------------------------------------------------------- main

const started = performance.now();
const kit = await loadKitModule();
const impls: Record<Key, Impl> = {
  kit: makeKitImpl(kit.mod),
  official: officialImpl,
  raw: rawImpl,
  rawc: rawCoalescingImpl,
};

console.log(`acp-kit benchmark — node ${process.version}, ${process.platform}/${process.arch}`);
console.log(`acp-kit column: ${kit.label}`);
console.log(`  module: ${kit.url}`);
if (kit.fellBack) console.log("  WARNING: dist/ is not built; these are NOT acp-kit numbers.");
if (!(globalThis as { gc?: unknown }).gc)
  console.log("  WARNING: run with --expose-gc; no GC between runs.");
if (quick) console.log("  --quick: reduced sizes, 1 run; not a measurement.");
console.log(
  `runs: S1 ${RUNS.s1}, S2 ${RUNS.s2}, S2c ${RUNS.s2c}, S3 ${RUNS.s3}, S4 ${RUNS.s4} (after warm-up); cold import ${RUNS.coldImport}`,
);

const results: Partial<Record<"S1" | "S2" | "S2c" | "S3" | "S4", ScenarioSamples>> = {};
const rows: Row[] = [];

if (only.has("S1")) {
  const s = interleaved
    ? await inProcess("S1", impls, RUNS.s1, SIZES.s1, SIZES.s1 / 5, (impl, n) => impl.streaming(n))
    : await isolated("S1", kit.url, RUNS.s1, SIZES.s1, SIZES.s1 / 2);
  results.S1 = s;
  rows.push(rateRow(`S1 stream ${SIZES.s1} updates`, s, SIZES.s1, { rawc: 0.9, official: 5 }));
}
if (only.has("S2")) {
  const s = interleaved
    ? await inProcess("S2", impls, RUNS.s2, SIZES.s2, SIZES.s2 / 4, (impl, n) =>
        impl.sequentialReads(n),
      )
    : await isolated("S2", kit.url, RUNS.s2, SIZES.s2, SIZES.s2);
  results.S2 = s;
  rows.push({
    ...rateRow(`S2 ${SIZES.s2} sequential reads`, s, SIZES.s2, { raw: 1.0 }),
    unit: "req/s",
  });
}
if (only.has("S2c")) {
  const s = interleaved
    ? await inProcess("S2c", impls, RUNS.s2c, SIZES.s2c, SIZES.s2c / 4, (impl, n) =>
        impl.concurrentReads(n, SIZES.inFlight),
      )
    : await isolated("S2c", kit.url, RUNS.s2c, SIZES.s2c, SIZES.s2c, SIZES.inFlight);
  results.S2c = s;
  rows.push({
    ...rateRow(`S2c ${SIZES.s2c} reads, ${SIZES.inFlight} in flight`, s, SIZES.s2c, {
      rawc: 0.9,
      official: 5,
    }),
    unit: "req/s",
  });
}
if (only.has("S3")) {
  log("S3: one child process per run");
  const s = await bigRead(kit.url);
  results.S3 = s;
  const mib = SIZES.s3 / MB;
  rows.push({
    label: `S3 ${mib} MiB read: time`,
    unit: "ms",
    higherIsBetter: false,
    values: perKey(s, (x) => median(x.ms)),
    spread: perKey(s, (x) => spreadOf(x.ms)),
    targets: { raw: 1.1 },
  });
  const rssNotRaised = KEYS.filter((k) => s[k].rssPeakFromOp?.some((b) => !b));
  rows.push({
    label: `S3 ${mib} MiB read: peak RSS delta`,
    unit: "MB",
    higherIsBetter: false,
    values: perKey(s, (x) => median(x.rssDeltaBytes ?? []) / MB),
    spread: perKey(s, (x) => spreadOf(x.rssDeltaBytes ?? [])),
    targets: { raw: 1.1 },
    ...(rssNotRaised.length > 0
      ? {
          warn: `S3: the read did not raise the process's peak RSS for ${rssNotRaised.join(", ")} in some runs; their RSS delta is a lower bound`,
        }
      : {}),
  });
  rows.push({
    label: `S3 ${mib} MiB read: heap+ext delta (sampled)`,
    unit: "MB",
    higherIsBetter: false,
    values: perKey(s, (x) => median(x.heapDeltaBytes ?? []) / MB),
    spread: perKey(s, (x) => spreadOf(x.heapDeltaBytes ?? [])),
  });
}
if (only.has("S4")) {
  log("S4: child-process agents over stdio");
  const s = await stdio(kit);
  results.S4 = s;
  rows.push(
    rateRow(`S4 stdio stream ${SIZES.s4} updates`, s, SIZES.s4, { rawc: 0.9, official: 5 }),
  );
}

let cold: Record<string, ColdImport | string> | undefined;
if (only.has("import")) {
  log("cold import");
  cold = {};
  if (builtKitUrl()) cold["acp-kit"] = coldImport("acp-kit", RUNS.coldImport);
  else cold["acp-kit"] = "skipped: dist/ not built";
  cold["@agentclientprotocol/sdk 2.4.0"] = coldImport("@agentclientprotocol/sdk", RUNS.coldImport);
  cold["acp-sdk-classic 1.9.0"] = coldImport("acp-sdk-classic", RUNS.coldImport);
}

printTable(rows, kit.label);
if (cold) {
  console.log(
    `\ncold import (fresh node per sample, median of ${RUNS.coldImport}; target for acp-kit < 50 ms):`,
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
console.log(`\ntotal benchmark time: ${totalSeconds.toFixed(1)} s`);

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
      sizes: SIZES,
      runs: RUNS,
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
