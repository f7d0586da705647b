/**
 * The client probe's interactive steps: a permission request, one update of every kind
 * with a confirmation question, and the cancel step (the user presses Cancel while a
 * permission request is pending).
 *
 * @module
 */
import type * as schema from "../../schema/types.gen.js";
import { failed, passed, skipped, type CheckOutcome } from "../conformance/catalog.js";
import { attempt, errorAnswer, errorText, type ProbeContext } from "./context.js";

/** The tool call ids of the probe's permission requests (clients under test may key on them). */
export const PROBE_TOOL_CALLS = {
  permission: "probe-permission",
  confirm: "probe-confirm",
  cancel: "probe-cancel",
} as const;

const YES_NO: schema.PermissionOption[] = [
  { optionId: "yes", name: "Yes", kind: "allow_once" },
  { optionId: "no", name: "No", kind: "reject_once" },
];

async function ask(
  context: ProbeContext,
  toolCallId: string,
  title: string,
  options: schema.PermissionOption[],
  timeoutMs: number,
) {
  await context.send({
    sessionUpdate: "tool_call",
    toolCallId,
    title,
    kind: "other",
    status: "pending",
  });
  const params = { sessionId: context.sessionId, toolCall: { toolCallId, title }, options };
  const answer = await attempt(() => context.connection.requestPermission(params, { timeoutMs }));
  await context.send({ sessionUpdate: "tool_call_update", toolCallId, status: "completed" });
  return { params, answer };
}

/** A harmless permission request: any offered option, or `cancelled`, is a valid answer. */
export async function probePermission(context: ProbeContext): Promise<CheckOutcome> {
  const options: schema.PermissionOption[] = [
    { optionId: "allow", name: "Allow (nothing will happen)", kind: "allow_once" },
    { optionId: "reject", name: "Reject", kind: "reject_once" },
  ];
  const title = "acp-kit probe: a harmless permission request (choose any option)";
  const { params, answer } = await ask(
    context,
    PROBE_TOOL_CALLS.permission,
    title,
    options,
    context.timeouts.answerMs,
  );
  if (!answer.ok) {
    return failed(
      `session/request_permission failed: ${errorText(answer.error)}`,
      context.quote("session/request_permission", params, errorAnswer(answer.error)),
    );
  }
  const outcome = answer.value.outcome;
  if (outcome.outcome === "cancelled") return passed(["Answered cancelled."]);
  if (!options.some((option) => option.optionId === outcome.optionId)) {
    return failed(
      `The answer selected ${JSON.stringify(outcome.optionId)}, which was not offered`,
      context.quote("session/request_permission", params, answer.value),
    );
  }
  return passed([`Answered with option "${outcome.optionId}".`]);
}

function everyKind(context: ProbeContext): schema.SessionUpdate[] {
  const text = (value: string): schema.ContentBlock => ({ type: "text", text: value });
  return [
    { sessionUpdate: "user_message_chunk", content: text("(probe) a user message chunk") },
    {
      sessionUpdate: "agent_message_chunk",
      content: text("\n\nMarkdown check: **bold**, `code`, and a list:\n\n- one\n- two\n\n"),
    },
    { sessionUpdate: "agent_thought_chunk", content: text("(probe) a thought") },
    {
      sessionUpdate: "tool_call",
      toolCallId: "probe-render",
      title: "A tool call",
      kind: "read",
      status: "pending",
      locations: [{ path: context.cwd }],
    },
    {
      sessionUpdate: "tool_call_update",
      toolCallId: "probe-render",
      status: "completed",
      content: [{ type: "content", content: text("tool output") }],
    },
    {
      sessionUpdate: "plan",
      entries: [{ content: "Old step", priority: "high", status: "pending" }],
    },
    {
      sessionUpdate: "plan",
      entries: [
        { content: "First step", priority: "high", status: "completed" },
        { content: "Second step", priority: "low", status: "in_progress" },
      ],
    },
    {
      sessionUpdate: "available_commands_update",
      availableCommands: [
        {
          name: "probe-help",
          description: "A command of the acp-kit probe",
          input: { hint: "anything" },
        },
      ],
    },
    { sessionUpdate: "current_mode_update", currentModeId: "probe-other" },
    {
      sessionUpdate: "config_option_update",
      configOptions: [
        {
          id: "probe-option",
          name: "Probe option",
          type: "select",
          currentValue: "b",
          options: [
            { value: "a", name: "A" },
            { value: "b", name: "B" },
          ],
        },
      ],
    },
    {
      sessionUpdate: "session_info_update",
      title: "acp-kit probe",
      updatedAt: new Date().toISOString(),
    },
    {
      sessionUpdate: "usage_update",
      used: 1234,
      size: 200000,
      cost: { amount: 0.01, currency: "USD" },
    },
  ];
}

/** What the user is asked to confirm after the updates. */
export const RENDERING_QUESTION =
  "Did all of these show up? A user message, Markdown text (bold, code, a list), a thought, " +
  'a completed tool call "A tool call" with output, a plan of exactly two entries ("First step", ' +
  '"Second step"; "Old step" replaced), the command /probe-help, the mode "Probe (other)", ' +
  'the option "Probe option" = B, the title "acp-kit probe", usage 1234 of 200000 tokens (0.01 USD).';

/** Sends one update of every stable kind, then asks the user whether they all rendered. */
export async function probeRendering(context: ProbeContext): Promise<CheckOutcome> {
  await context.say("\n\nNext, one `session/update` of every kind:\n");
  for (const update of everyKind(context)) await context.send(update);
  await context.say(`\n\n${RENDERING_QUESTION}\n`);
  const { answer } = await ask(
    context,
    PROBE_TOOL_CALLS.confirm,
    `acp-kit probe: ${RENDERING_QUESTION}`,
    YES_NO,
    context.timeouts.answerMs,
  );
  if (!answer.ok) return skipped(`No answer to the question: ${errorText(answer.error)}`);
  const outcome = answer.value.outcome;
  if (outcome.outcome === "cancelled") return skipped("The question was answered cancelled");
  if (outcome.optionId !== "yes")
    return failed("The user reported that some updates did not render");
  return passed([
    'Confirmed by choosing "Yes" (a client that approves automatically confirms without a human).',
  ]);
}

/**
 * The cancel step: the user is asked to press Cancel while a permission request is
 * pending; the client must answer it `cancelled`.
 */
export async function probeCancel(context: ProbeContext): Promise<CheckOutcome> {
  await context.say(
    "\n\n**Last step: press Cancel (Stop) now**, while the permission request below is open. " +
      "Do not choose an option.\n",
  );
  const title = "acp-kit probe: press Cancel/Stop in your editor now (do not choose an option)";
  const { params, answer } = await ask(
    context,
    PROBE_TOOL_CALLS.cancel,
    title,
    YES_NO,
    context.timeouts.cancelStepMs,
  );
  const cancelledFirst = context.cancelled();
  if (!answer.ok) return skipped(`The request got no answer: ${errorText(answer.error)}`);
  const outcome = answer.value.outcome;
  if (outcome.outcome === "selected") {
    if (!cancelledFirst) {
      return skipped(
        "An option was chosen instead of pressing Cancel; run the probe again and press Cancel",
      );
    }
    return failed(
      `session/cancel arrived, yet the pending permission request was answered with option "${outcome.optionId}" instead of cancelled`,
      context.quote("session/request_permission", params, answer.value),
    );
  }
  if (!cancelledFirst) {
    await Promise.race([context.cancellation, new Promise((resolve) => setTimeout(resolve, 2000))]);
  }
  return passed(context.cancelled() ? [] : ["Answered cancelled, but no session/cancel followed."]);
}
