/**
 * S3 measurement child: one `fs/read_text_file` whose response carries a large
 * text file, in a fresh process, so that the peak-memory number belongs to
 * that single operation and not to whatever the parent did before.
 *
 * Usage: node --expose-gc --import tsx bench/scenarios/big-read-child.ts <kit|official|raw|rawc> <chars>
 * (ACP_KIT_MODULE = URL of the classic-API module for "kit").
 * Prints one JSON line: {@link BigReadSample}.
 *
 * Memory method:
 * 1. Load everything, build the file content (a flat one-byte string, part of
 *    the baseline since the client holds the file before the request), and
 *    warm the code path with three 256 KiB reads.
 * 2. Two full GCs (`--expose-gc`), then record the baseline:
 *    `process.memoryUsage()` (rss, heapUsed + external) and the process's
 *    lifetime peak RSS so far (`process.resourceUsage().maxRSS`, getrusage).
 * 3. Run the big read while a 1 ms interval samples `process.memoryUsage()`.
 * 4. Peak RSS = max(getrusage maxRSS after, sampled RSS). getrusage is exact
 *    (the kernel's high-water mark, it sees peaks inside synchronous
 *    JSON.parse/stringify that no JS sampler can), but it cannot be reset, so
 *    it only says something about the operation if the operation raised it
 *    above the pre-operation peak: `rssPeakFromOp` records whether it did.
 *    Heap peak (heapUsed + external, which includes ArrayBuffers) is only
 *    sampled between tasks, so it is a lower bound.
 * Deltas are against the post-GC baseline, so they count what the transfer
 * itself allocated (encoded bytes, decoded text, parsed copy, ...), not the
 * 20 MiB source string.
 */
import { fullGc, type Impl } from "../lib/common.ts";
import { loadKitModule } from "../lib/kit-module.ts";

export interface BigReadSample {
  ms: number;
  rssDeltaBytes: number;
  heapDeltaBytes: number;
  rssPeakFromOp: boolean;
  baselineRssBytes: number;
}

/** A flat (non-rope) one-byte string of `chars` characters: 63-char lines plus "\n". */
function makeContent(chars: number): string {
  const line = "const value = computeSomething(alpha, beta, gamma); // comment\n";
  const buf = Buffer.alloc(chars);
  for (let i = 0; i < chars; i += line.length) buf.write(line, i, "latin1");
  return buf.toString("latin1");
}

async function loadImpl(name: string): Promise<Impl> {
  switch (name) {
    case "kit": {
      const { makeKitImpl } = await import("./kit.ts");
      return makeKitImpl((await loadKitModule()).mod);
    }
    case "official":
      return (await import("./official.ts")).officialImpl;
    case "raw":
      return (await import("./raw.ts")).rawImpl;
    case "rawc":
      return (await import("./raw.ts")).rawCoalescingImpl;
    default:
      throw new Error(`unknown implementation ${name}`);
  }
}

const [implName = "", charsArg = String(20 * 1024 * 1024)] = process.argv.slice(2);
const impl = await loadImpl(implName);
const content = makeContent(Number(charsArg));
const small = makeContent(256 * 1024);
for (let i = 0; i < 3; i++) await impl.bigRead(small);

fullGc();
await new Promise((r) => setImmediate(r));
fullGc();
const base = process.memoryUsage();
const baseHeap = base.heapUsed + base.external;
const maxRssBefore = process.resourceUsage().maxRSS * 1024;
let peakRss = base.rss;
let peakHeap = baseHeap;
const sample = (): void => {
  const m = process.memoryUsage();
  if (m.rss > peakRss) peakRss = m.rss;
  if (m.heapUsed + m.external > peakHeap) peakHeap = m.heapUsed + m.external;
};
const timer = setInterval(sample, 1);
const { ms } = await impl.bigRead(content);
sample();
clearInterval(timer);
const maxRssAfter = process.resourceUsage().maxRSS * 1024;
peakRss = Math.max(peakRss, maxRssAfter);

const result: BigReadSample = {
  ms,
  rssDeltaBytes: peakRss - base.rss,
  heapDeltaBytes: peakHeap - baseHeap,
  rssPeakFromOp: maxRssAfter > maxRssBefore,
  baselineRssBytes: base.rss,
};
process.stdout.write(JSON.stringify(result) + "\n");
