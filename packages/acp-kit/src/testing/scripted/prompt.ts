/**
 * The scripted agent's prompt turns and config option changes.
 *
 * @module
 */
import type { TurnResult } from "../../agent/agent-kit.js";
import type { PromptTurn } from "../../agent/prompt-turn.js";
import { ErrorCodes } from "../../base/error-codes.js";
import { RequestError } from "../../jsonrpc/errors.js";
import type * as schema from "../../schema/types.gen.js";
import { chooseTurn, promptText } from "../scenario/match.js";
import type { Scenario } from "../scenario/types.js";
import { selectValues } from "../scenario/validate-values.js";
import { StepRunner, type TurnEnvironment } from "./runner.js";
import { STEP_HANDLERS } from "./steps.js";
import type { ScriptedSession } from "./sessions.js";

const GATED_BLOCKS = {
  image: "image",
  audio: "audio",
  resource: "embeddedContext",
} as const;

/**
 * Rejects (`-32602`) a prompt with blocks the agent's prompt capabilities do not allow.
 *
 * @param params - The prompt.
 * @param capabilities - The advertised prompt capabilities.
 * @internal
 */
export function checkPrompt(
  params: schema.PromptRequest,
  capabilities: schema.PromptCapabilities | undefined,
): void {
  for (const [index, block] of params.prompt.entries()) {
    if (!(block.type in GATED_BLOCKS)) continue;
    const capability = GATED_BLOCKS[block.type as keyof typeof GATED_BLOCKS];
    if (capabilities?.[capability] === true) continue;
    throw RequestError.invalidParams(
      { index, type: block.type },
      `a ${block.type} block needs the promptCapabilities.${capability} capability, which this agent does not advertise`,
    );
  }
}

/**
 * Runs the scenario turn that answers the prompt: records the user's message for
 * `session/load`, picks the turn, runs its steps.
 *
 * @param turn - The kit's prompt turn.
 * @param scenario - The scenario.
 * @param env - The client's capabilities and the delay scale.
 * @internal
 */
export async function runPromptTurn(
  turn: PromptTurn<ScriptedSession>,
  scenario: Scenario,
  env: TurnEnvironment,
): Promise<TurnResult> {
  const session = turn.session;
  await session.ready;
  for (const block of turn.prompt) {
    session.history.push({ sessionUpdate: "user_message_chunk", content: block });
  }
  const chosen = chooseTurn(scenario.turns, turn.prompt, session.orderedTurns);
  if (chosen === undefined) {
    throw new RequestError(ErrorCodes.INTERNAL_ERROR, "No scenario turn answers this prompt", {
      prompt: promptText(turn.prompt),
    });
  }
  if (chosen.ordered) session.orderedTurns += 1;
  session.turns += 1;
  const values = new Map(chosen.values).set("turn", String(session.turns));
  const flow = await new StepRunner(turn, env, values, STEP_HANDLERS).run(chosen.turn.steps);
  return flow?.stop ?? "end_turn";
}

/**
 * Applies `session/set_config_option` to the session; returns all its options.
 *
 * @param session - The session.
 * @param params - The request.
 * @throws RequestError `-32602` for an unknown option or a value it does not offer.
 * @internal
 */
export function setConfigOption(
  session: ScriptedSession,
  params: schema.SetSessionConfigOptionRequest,
): schema.SessionConfigOption[] {
  const options = session.configOptions ?? [];
  const option = options.find((candidate) => candidate.id === params.configId);
  if (option === undefined) {
    throw RequestError.invalidParams({ configId: params.configId }, "unknown config option");
  }
  const value: unknown = params.value;
  const valid =
    option.type === "boolean"
      ? typeof value === "boolean"
      : typeof value === "string" && selectValues(option.options).includes(value);
  if (!valid) {
    throw RequestError.invalidParams(
      { configId: params.configId, value },
      `the config option ${params.configId} has no value ${JSON.stringify(value)}`,
    );
  }
  (option as { currentValue: unknown }).currentValue = value;
  return options;
}
