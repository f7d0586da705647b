/**
 * Checks of prompt turns: an ordinary turn, a cancelled one, and one ended by
 * `session/close`.
 *
 * @module
 */
import { pathToFileURL } from "node:url";
import type { AgentCapabilities, ContentBlock } from "../../../schema/types.gen.js";
import { failed, inconclusive, passed, skipped, type CheckOutcome } from "../catalog.js";
import { isTurnUpdate } from "../log.js";
import type { WireOutcome } from "../wire.js";
import type { CheckChannel, RunContext } from "./support.js";
import {
  LONG_PROMPT,
  SHORT_PROMPT,
  activityOf,
  describe,
  exchangeOf,
  environmentProblem,
  invalidBecause,
  isAuthRequired,
  sleep,
} from "./support.js";
import { environmentOutcome, newSession } from "./sessions.js";

/** A prompt: the text and a resource link to the run's notes file. */
export function promptBlocks(context: RunContext, text: string): ContentBlock[] {
  return [
    { type: "text", text },
    {
      type: "resource_link",
      uri: pathToFileURL(context.notesPath).href,
      name: "notes.txt",
      mimeType: "text/plain",
    },
  ];
}

function stopReasonOf(outcome: WireOutcome): unknown {
  if (outcome.kind !== "result" || typeof outcome.result !== "object" || outcome.result === null) {
    return undefined;
  }
  return (outcome.result as Record<string, unknown>).stopReason;
}

/** A prompt with a text block and a resource link ends with a valid stop reason. */
export async function checkPromptTurn(
  context: RunContext,
  channel: CheckChannel,
  sessionId: string,
): Promise<{ outcome: CheckOutcome; completed: boolean; live: boolean; login?: boolean }> {
  const prompt = promptBlocks(context, SHORT_PROMPT);
  const outcome = await channel.request(
    "session/prompt",
    { sessionId, prompt },
    context.timeouts.promptMs,
  );
  const environment = environmentOutcome(context, outcome, true);
  if (environment !== undefined) {
    return { outcome: environment, completed: false, live: false, login: isAuthRequired(outcome) };
  }
  const quiet = (): boolean => false;
  if (outcome.kind !== "result") {
    const reason = `session/prompt with a text block and a resource_link ${describe(outcome)}`;
    return {
      outcome: failed(reason, exchangeOf(context.log, outcome, quiet)),
      completed: false,
      live: true,
    };
  }
  const invalid = invalidBecause("PromptResponse", outcome.result);
  if (invalid !== undefined) {
    const reason = `The session/prompt result is ${invalid}`;
    return {
      outcome: failed(reason, exchangeOf(context.log, outcome, quiet)),
      completed: true,
      live: true,
    };
  }
  const stopReason = String(stopReasonOf(outcome));
  return {
    outcome: passed([`The turn ended with stopReason "${stopReason}".`]),
    completed: true,
    live: true,
  };
}

/** How a turn interrupted by the checker ended. */
interface Interrupted {
  /** The turn ended before the checker could interrupt it. */
  readonly early?: WireOutcome;
  /** The prompt's outcome, or undefined if it did not answer in time. */
  readonly answer?: WireOutcome;
  /** The sequence number of the prompt request. */
  readonly promptSeq: number;
  /** The sequence number of the interrupting message. */
  readonly interruptSeq: number;
}

/**
 * Starts a long turn and interrupts it with `interrupt` at its first sign of activity
 * (or after `cancelDelayMs`). The session's requests are held meanwhile, so the turn
 * cannot finish on its own while the checker waits.
 */
async function interruptTurn(
  context: RunContext,
  channel: CheckChannel,
  sessionId: string,
  interrupt: () => number,
): Promise<Interrupted> {
  channel.client.hold(sessionId);
  const activity = activityOf(context.log, channel.name, sessionId);
  const promptSeq = context.log.nextSeq;
  const prompt = channel.request(
    "session/prompt",
    { sessionId, prompt: promptBlocks(context, LONG_PROMPT) },
    context.timeouts.promptMs,
  );
  const first = await Promise.race([
    prompt,
    activity.seen.then(() => undefined),
    sleep(context.timeouts.cancelDelayMs).then(() => undefined),
  ]);
  activity.stop();
  if (first !== undefined) {
    channel.client.release();
    return { early: first, promptSeq, interruptSeq: context.log.nextSeq };
  }
  const interruptSeq = interrupt();
  channel.client.release();
  const answer = await Promise.race([
    prompt,
    sleep(context.timeouts.cancelMs).then(() => undefined),
  ]);
  return { ...(answer === undefined ? {} : { answer }), promptSeq, interruptSeq };
}

/** Judges the answer of an interrupted turn: `cancelled`, in time, no turn updates after. */
async function judgeCancelled(
  context: RunContext,
  channel: CheckChannel,
  sessionId: string,
  turn: Interrupted,
  what: string,
): Promise<CheckOutcome> {
  const answer = turn.answer;
  if (answer === undefined) {
    const shown = context.log.between(
      channel.name,
      turn.promptSeq,
      undefined,
      (r) => r.seq === turn.promptSeq || r.seq >= turn.interruptSeq - 2,
    );
    return failed(
      `The prompt was not answered within ${context.timeouts.cancelMs} ms after ${what}`,
      context.log.excerpt(shown),
    );
  }
  if ("response" in answer && answer.response.seq < turn.interruptSeq) {
    return inconclusive(
      `The turn was answered (${describe(answer)}) before ${what} was sent`,
      exchangeOf(context.log, answer, () => false),
    );
  }
  const exchange = (): ReturnType<typeof exchangeOf> =>
    exchangeOf(context.log, answer, (r) => r.seq >= turn.interruptSeq - 2);
  if (answer.kind === "error") {
    return failed(
      `After ${what} the prompt ${describe(answer)}; a cancelled turn must answer stopReason "cancelled", not an error`,
      exchange(),
    );
  }
  if (answer.kind !== "result")
    return failed(`After ${what} the prompt ${describe(answer)}`, exchange());
  const stopReason = stopReasonOf(answer);
  if (stopReason !== "cancelled") {
    // The turn may have finished as the interruption crossed it on the wire: with no update
    // between the interruption and the answer, that cannot be told from ignoring it.
    const busyAfter = context.log.between(
      channel.name,
      turn.interruptSeq,
      answer.response.seq,
      (r) => isTurnUpdate(r, sessionId),
    );
    if (busyAfter.length === 0) {
      return inconclusive(
        `After ${what} the prompt answered stopReason ${JSON.stringify(stopReason)} at once, with no update in between: the turn may have ended before ${what} arrived`,
        exchange(),
      );
    }
    return failed(
      `After ${what} the prompt answered stopReason ${JSON.stringify(stopReason)}, not "cancelled"`,
      exchange(),
      [
        "If the turn had already finished when the cancellation arrived this can be a race; run again.",
      ],
    );
  }
  await sleep(context.timeouts.quietMs);
  const late = context.log.between(channel.name, answer.response.seq + 1, undefined, (r) =>
    isTurnUpdate(r, sessionId),
  );
  if (late.length > 0) {
    return failed(
      `${late.length} session/update(s) for the cancelled turn arrived after its answer`,
      context.log.excerpt([answer.response, ...late]),
    );
  }
  return passed();
}

function earlySkip(context: RunContext, early: WireOutcome, what: string): CheckOutcome {
  const exchange = exchangeOf(context.log, early, () => false);
  const problem = environmentProblem(early, true);
  if (problem !== undefined) return inconclusive(problem, exchange);
  return inconclusive(
    `The turn ended (${describe(early)}) before ${what} could be sent, without any sign of ` +
      "activity first",
    exchange,
  );
}

/** `session/cancel` during a turn: answered `cancelled` within the bound, nothing after. */
export async function checkCancel(
  context: RunContext,
  channel: CheckChannel,
  sessionId: string,
): Promise<CheckOutcome> {
  const turn = await interruptTurn(
    context,
    channel,
    sessionId,
    () => channel.notify("session/cancel", { sessionId }).seq,
  );
  if (turn.early !== undefined) return earlySkip(context, turn.early, "session/cancel");
  return judgeCancelled(context, channel, sessionId, turn, "session/cancel");
}

/** `session/close` during a turn: answered, and the turn ends `cancelled`. */
export async function checkSessionClose(
  context: RunContext,
  channel: CheckChannel,
  capabilities: AgentCapabilities,
): Promise<CheckOutcome> {
  if (capabilities.sessionCapabilities?.close == null) {
    return skipped("Not advertised (sessionCapabilities.close)");
  }
  const created = await newSession(context, channel);
  const login = environmentOutcome(context, created, false);
  if (login !== undefined) return login;
  const sessionId =
    created.kind === "result" ? (created.result as { sessionId?: unknown }).sessionId : undefined;
  if (typeof sessionId !== "string") return skipped(`session/new ${describe(created)}`);
  let close: Promise<WireOutcome> | undefined;
  const turn = await interruptTurn(context, channel, sessionId, () => {
    close = channel.request("session/close", { sessionId });
    return context.log.nextSeq - 1;
  });
  const closed = await (close ?? channel.request("session/close", { sessionId }));
  if (closed.kind !== "result") {
    return failed(`session/close ${describe(closed)}`, exchangeOf(context.log, closed));
  }
  const invalid = invalidBecause("CloseSessionResponse", closed.result);
  if (invalid !== undefined) {
    return failed(`The session/close result is ${invalid}`, exchangeOf(context.log, closed));
  }
  if (turn.early !== undefined) {
    const problem = environmentOutcome(context, turn.early, true);
    if (problem !== undefined) return problem;
    return passed([
      "The turn ended before session/close could be sent: that close cancels a running turn is untested.",
    ]);
  }
  const judged = await judgeCancelled(context, channel, sessionId, turn, "session/close");
  if (judged.status !== "inconclusive") return judged;
  // session/close itself answered well; only its effect on the turn is undecided.
  return passed([`${judged.reason ?? ""}: that close cancels a running turn is untested.`]);
}
