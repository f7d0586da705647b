/**
 * Runs one in-process scenario (S1, S2 or S2c) for one implementation in a fresh
 * process: a warm-up, then `runs` timed runs, a full GC before each.
 *
 * Usage: node --expose-gc --import tsx bench/scenarios/in-process-child.ts
 *          <S1|S2|S2c> <kit|official|raw|rawc> <runs> <size> <warmupSize> [inFlight]
 * (ACP_KIT_MODULE = URL of the classic-API module for "kit").
 * Prints one JSON line: {@link InProcessSamples}.
 *
 * Why a process per implementation: when implementations alternate in one process, the
 * JIT feedback each leaves in shared code (Web Streams internals, JSON, promise
 * machinery) slows down whichever runs next, by different amounts for each. A fresh
 * process measures each implementation on its own.
 */
import { fullGc, type Impl, type StreamResult, type TimedResult } from "../lib/common.ts";
import { loadKitModule } from "../lib/kit-module.ts";

/** What the child reports. */
export interface InProcessSamples {
  ms: number[];
  receivedAtResolve?: number[];
}

const [scenario, key, runsArg, sizeArg, warmupArg, inFlightArg] = process.argv.slice(2);

async function implFor(which: string | undefined): Promise<Impl> {
  if (which === "kit") {
    const { makeKitImpl } = await import("./kit.ts");
    return makeKitImpl((await loadKitModule()).mod);
  }
  if (which === "official") return (await import("./official.ts")).officialImpl;
  if (which === "raw") return (await import("./raw.ts")).rawImpl;
  if (which === "rawc") return (await import("./raw.ts")).rawCoalescingImpl;
  throw new Error(`unknown implementation ${String(which)}`);
}

function runner(impl: Impl): (n: number) => Promise<TimedResult | StreamResult> {
  switch (scenario) {
    case "S1":
      return (n) => impl.streaming(n);
    case "S2":
      return (n) => impl.sequentialReads(n);
    case "S2c":
      return (n) => impl.concurrentReads(n, Number(inFlightArg));
    default:
      throw new Error(`unknown scenario ${String(scenario)}`);
  }
}

const run = runner(await implFor(key));
await run(Number(warmupArg));
const samples: InProcessSamples = { ms: [] };
for (let i = 0; i < Number(runsArg); i++) {
  fullGc();
  const r = await run(Number(sizeArg));
  samples.ms.push(r.ms);
  if ("receivedAtResolve" in r) (samples.receivedAtResolve ??= []).push(r.receivedAtResolve);
}
process.stdout.write(JSON.stringify(samples) + "\n");
process.exit(0);
