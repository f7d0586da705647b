/**
 * One cell of the benchmark: one scenario (S1, S1v2, S2, S2c or S4), one implementation, one
 * size, in a fresh process: an optional warm-up, then `runs` timed runs, a full GC before
 * each. The first timed run is reported with the others: a caller that sends one burst
 * right after connecting gets that one.
 *
 * Usage: node --expose-gc --import tsx bench/scenarios/cell.ts
 *          <S1|S1v2|S2|S2c|S4|S4v2> <kit|official|raw|rawc> <runs> <size> <warmupSize> [inFlight]
 * (S1v2 and S4v2, ACP v2: kit and official only)
 * (env ACP_KIT_MODULE = URL of the classic-API module for "kit"; BENCH_CHUNK_CHARS = text
 * per update in S1/S4). Prints one JSON line: {@link CellSamples}.
 *
 * Why a process per cell: when implementations (or sizes) follow each other in one process,
 * the JIT feedback each leaves in shared code (Web Streams internals, JSON, promise
 * machinery) slows down whichever runs next, by different amounts for each, and a later
 * cell would start warm. S4 starts its agent child here too, so the client side of S4 is
 * as fresh as the agent side.
 */
import { fullGc, type Impl, type StreamResult, type TimedResult } from "../lib/common.ts";
import { loadKitModule } from "../lib/kit-module.ts";

/** What the child reports. */
export interface CellSamples {
  /** Timed runs in order: `ms[0]` is the first timed run. */
  ms: number[];
  /**
   * CPU time (user + system, all threads) per run, in ms: less disturbed than `ms` by other
   * work on a loaded machine. For S4, the client's and the agent child's together (the
   * agent's is asked for before and after the run, untimed).
   */
  cpuMs: number[];
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

type Run = (n: number) => Promise<TimedResult | StreamResult>;

async function runner(): Promise<{
  run: Run;
  beforeRun: () => Promise<void>;
  end: () => Promise<void>;
  /** S4: the agent child's CPU time so far, in ms. */
  agentCpuMs?: () => Promise<number>;
}> {
  const none = (): Promise<void> => Promise.resolve();
  if (scenario === "S4") {
    const { startStdioSession } = await import("./stdio.ts");
    if (key !== "kit" && key !== "official" && key !== "raw" && key !== "rawc")
      throw new Error(`unknown implementation ${String(key)}`);
    const session = await startStdioSession(key, await loadKitModule());
    return {
      run: (n) => session.prompt(n),
      beforeRun: () => session.childGc(),
      end: () => session.close(),
      agentCpuMs: () => session.childCpuMs(),
    };
  }
  if (scenario === "S4v2") {
    const { startStdioV2Session } = await import("./stdio-v2.ts");
    if (key !== "kit" && key !== "official")
      throw new Error(`S4v2 has no ${String(key)} implementation`);
    const session = await startStdioV2Session(key, (await loadKitModule()).url);
    return {
      run: (n) => session.prompt(n),
      beforeRun: () => session.childGc(),
      end: () => session.close(),
      agentCpuMs: () => session.childCpuMs(),
    };
  }
  if (scenario === "S1v2") {
    const v2 = await import("./v2.ts");
    const impl =
      key === "kit"
        ? await v2.kitV2Impl(new URL("./v2.js", (await loadKitModule()).url).href)
        : key === "official"
          ? v2.officialV2Impl
          : undefined;
    if (impl === undefined) throw new Error(`S1v2 has no ${String(key)} implementation`);
    return { run: (n) => impl.streaming(n), beforeRun: none, end: none };
  }
  const impl = await implFor(key);
  switch (scenario) {
    case "S1":
      return { run: (n) => impl.streaming(n), beforeRun: none, end: none };
    case "S2":
      return { run: (n) => impl.sequentialReads(n), beforeRun: none, end: none };
    case "S2c":
      return {
        run: (n) => impl.concurrentReads(n, Number(inFlightArg)),
        beforeRun: none,
        end: none,
      };
    default:
      throw new Error(`unknown scenario ${String(scenario)}`);
  }
}

const { run, beforeRun, end, agentCpuMs } = await runner();
if (Number(warmupArg) > 0) await run(Number(warmupArg));
const samples: CellSamples = { ms: [], cpuMs: [] };
for (let i = 0; i < Number(runsArg); i++) {
  await beforeRun();
  fullGc();
  const agentBefore = await agentCpuMs?.();
  const cpu = process.cpuUsage();
  const r = await run(Number(sizeArg));
  const { user, system } = process.cpuUsage(cpu);
  const agentAfter = await agentCpuMs?.();
  samples.ms.push(r.ms);
  samples.cpuMs.push((user + system) / 1000 + ((agentAfter ?? 0) - (agentBefore ?? 0)));
  if ("receivedAtResolve" in r) (samples.receivedAtResolve ??= []).push(r.receivedAtResolve);
}
await end();
process.stdout.write(JSON.stringify(samples) + "\n");
process.exit(0);
