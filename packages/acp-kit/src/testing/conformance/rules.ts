/**
 * The numbered rules of the conformance checklist that the checks test, in acp-kit's
 * words, and the rendering of the checklist shipped as `docs/checklist.md` and as
 * `checklist.md` in the `acp-kit` package. A rule's id is `R` and its number (`R14`).
 *
 * @module
 */
import { AGENT_CHECKS_V2, type CheckDefinition } from "./catalog.js";

/** How binding a rule is. */
export type RuleLevel = "MUST" | "SHOULD" | "MAY";

/** One rule of the checklist. */
export interface ChecklistRule {
  /** Its number (the id is `R<number>`). */
  readonly number: number;
  /** How binding it is. */
  readonly level: RuleLevel;
  /** What it says. */
  readonly text: string;
}

function rule(number: number, level: RuleLevel, text: string): ChecklistRule {
  return { number, level, text };
}

/** The rules the checks cite, by number. */
export const CHECKLIST_RULES: ReadonlyMap<number, ChecklistRule> = new Map(
  [
    rule(1, "MUST", "Every JSON-RPC message is encoded as UTF-8."),
    rule(3, "MUST", "On stdio, one message per line, ended by `\\n`; no newline inside a message."),
    rule(5, "MUST", "The agent writes nothing but ACP messages on stdout (logs go to stderr)."),
    rule(8, "MUST", "A notification is never answered, neither with a result nor with an error."),
    rule(9, "MUST", "File paths are absolute; line numbers start at 1."),
    rule(10, "MUST", "A response carries the id of the request it answers."),
    rule(11, "MUST", "The client calls `initialize` before it creates a session."),
    rule(
      12,
      "MUST",
      "`initialize` carries the client's newest protocol version and its capabilities.",
    ),
    rule(13, "SHOULD", "Each side says who it is (`clientInfo`, `agentInfo`)."),
    rule(
      14,
      "MUST",
      "The agent answers `initialize` with the negotiated version and its capabilities.",
    ),
    rule(
      15,
      "MUST",
      "An agent that speaks the requested version answers it; otherwise its newest one.",
    ),
    rule(17, "MUST", "Both sides use one version and follow it."),
    rule(20, "SHOULD", "Each side declares its capabilities."),
    rule(21, "MUST", "The agent accepts `text` and `resource_link` prompt blocks."),
    rule(
      22,
      "MUST",
      "The agent supports `session/new`, `session/prompt`, `session/cancel` and `session/update`.",
    ),
    rule(
      26,
      "MUST",
      "`terminal` auth methods are advertised only to a client that sent `auth.terminal: true`.",
    ),
    rule(35, "MUST", "`session/new` answers a session id no other session has."),
    rule(
      38,
      "MUST",
      "`session/load` replays the whole conversation as `session/update` notifications.",
    ),
    rule(39, "MUST", "`session/load` answers only after the replay was sent."),
    rule(43, "MUST", "`session/resume` does not replay the history before it answers."),
    rule(
      46,
      "MUST",
      "`session/close` cancels the running work like `session/cancel`, then frees the session.",
    ),
    rule(59, "MUST", "`session/list` answers a `sessions` array (empty when nothing matches)."),
    rule(60, "MUST", "With `cwd`, `session/list` lists only the sessions of that directory."),
    rule(69, "MUST", "A deleted session no longer appears in `session/list`."),
    rule(70, "SHOULD", "Deleting a missing or already deleted session succeeds silently."),
    rule(76, "MUST", "No boolean config option unless the client advertised support for them."),
    rule(
      91,
      "MUST",
      "`usage_update` carries `used` and `size`; a `cost` has `amount` and `currency`.",
    ),
    rule(92, "MUST", "When the turn is over, `session/prompt` answers a stop reason."),
    rule(98, "MUST", "On cancel, the client answers every pending permission request `cancelled`."),
    rule(
      100,
      "MUST",
      "A cancelled turn finally answers `session/prompt` with stop reason `cancelled`.",
    ),
    rule(
      101,
      "MUST",
      "Errors caused by the abort are caught: the answer is `cancelled`, not an error.",
    ),
    rule(
      102,
      "MUST",
      "Updates after `session/cancel` are allowed only before the prompt's answer.",
    ),
    rule(
      104,
      "MUST",
      "Text prompt blocks are supported; images, audio and resources need their capability.",
    ),
    rule(105, "SHOULD", "The client renders text as Markdown."),
    rule(
      107,
      "MUST",
      "A `tool_call_update` needs only `toolCallId`; other fields are the changed ones.",
    ),
    rule(111, "MUST", "Every plan update carries all entries; the client replaces its plan."),
    rule(113, "MAY", "The agent may advertise commands after a session starts and update them."),
    rule(114, "MUST", "The agent calls `fs/*` methods only when the client advertised them."),
    rule(115, "MUST", "`fs/write_text_file` creates the file when it does not exist."),
    rule(116, "MUST", "`fs/read_text_file`: `line` starts at 1, `limit` counts lines."),
    rule(
      117,
      "MUST",
      "The agent calls `terminal/*` methods only when the client advertised `terminal`.",
    ),
    rule(118, "MUST", "`terminal/create` answers at once, without waiting for the command."),
    rule(119, "MUST", "Output over `outputByteLimit` keeps the end, cut at a character boundary."),
    rule(120, "MUST", "`terminal/create` takes an absolute `cwd`."),
    rule(
      122,
      "MUST",
      "After `terminal/kill` the terminal still answers `output` and `wait_for_exit`.",
    ),
    rule(123, "MUST", "`terminal/release` kills a running command and invalidates the id."),
    rule(130, "MUST", "The agent does not call `elicitation/*` unless the client advertised it."),
    rule(151, "MAY", "`$/cancel_request` is optional; `$/` notifications may be ignored."),
    rule(
      159,
      "MAY",
      "Methods starting with `_` are extensions; other names belong to the protocol.",
    ),
    rule(160, "MUST", "An unknown extension request is answered `-32601`, with the request's id."),
    rule(161, "SHOULD", "Unknown notifications are ignored."),
    rule(
      201,
      "MUST",
      "v2: asked for a version, the agent answers it or its newest older one (1 for a v1-only agent), never an error when it speaks 1.",
    ),
    rule(202, "MUST", "v2: the `initialize` answer carries `protocolVersion` and `info`."),
    rule(
      203,
      "MUST",
      "v2: advertising `capabilities.session` commits the agent to `session/new`, `list`, `resume`, `close`, `prompt`, `cancel` and `update`.",
    ),
    rule(
      204,
      "MUST",
      "v2: `session/prompt` answers the `messageId` of the inserted user message, echoed as a `user_message` (or chunk) with that id.",
    ),
    rule(
      205,
      "MUST",
      "v2: the agent reports `running` (or `requires_action`) when foreground work starts and `idle` when it ends.",
    ),
    rule(206, "SHOULD", "v2: the `idle` that ends foreground work carries a `stopReason`."),
    rule(
      207,
      "MUST",
      'v2: after `session/cancel` the foreground work ends `idle` with `stopReason: "cancelled"`.',
    ),
    rule(
      208,
      "MUST",
      "v2: `session/resume` sends a current `state_update` after any replay and before its answer.",
    ),
    rule(
      209,
      "MUST",
      'v2: when `session/close` cancels running work, the `idle` with `stopReason: "cancelled"` comes before the close answer.',
    ),
  ].map((entry) => [entry.number, entry]),
);

const CLASSES = `Every result of \`acp-kit check\` is in one class:

- **MUST**: the agent broke a MUST rule. The verdict is NOT CONFORMANT.
- **SHOULD**: the agent broke a SHOULD rule, or a rule the checklist does not number
  (only sections of the protocol). A warning: the verdict stays OK.
- **INCONCLUSIVE**: the environment kept the check from deciding: a login is missing
  (\`-32000\`), the agent reported a network error, or an offline model let a turn time
  out. The request and the agent's own message are quoted. Log in (\`--auth METHOD\`),
  fix the network, and run again.
- **PASS** and **SKIP** (not advertised, or it needs a step that did not happen; the
  reason is said once, on the check it depends on).`;

function anchorRules(definition: CheckDefinition): string[] {
  const lines: string[] = [];
  for (const number of definition.rules) {
    const found = CHECKLIST_RULES.get(number);
    lines.push(`- **R${number}** (${found?.level ?? "MUST"}): ${found?.text ?? ""}`);
  }
  if (definition.sections.length > 0) {
    lines.push(
      `- Relies on protocol sections ${definition.sections.join(", ")} (no numbered rule).`,
    );
  }
  return lines;
}

function section(definition: CheckDefinition): string[] {
  const level = definition.severity === "must" ? "MUST" : "SHOULD";
  return [
    `### \`${definition.id}\``,
    "",
    `${definition.title}. A failure is class **${level}**.`,
    "",
    ...anchorRules(definition),
    "",
  ];
}

/**
 * The checklist as Markdown: the classes of results, then one section per check (its
 * anchor is its id) listing the rules it tests: v1 agent checks, the v2 agent checks not
 * already listed, client checks.
 */
export function formatChecklist(
  agentChecks: readonly CheckDefinition[],
  clientChecks: readonly CheckDefinition[],
  v2AgentChecks: readonly CheckDefinition[] = AGENT_CHECKS_V2,
): string {
  const v1Ids = new Set(agentChecks.map((definition) => definition.id));
  const v2Only = v2AgentChecks.filter((definition) => !v1Ids.has(definition.id));
  const lines = [
    "# ACP conformance checklist (acp-kit)",
    "",
    "<!-- Generated from the check catalog (packages/acp-kit/src/testing/conformance); do not edit. -->",
    "",
    "The rules `acp-kit check` (agents) and `acp-kit check-client` (editors) test, in our",
    "words, numbered as in acp-kit's protocol digest (`R14` is rule 14). Each result of a",
    "report links to its check's section here (`checklist.md#<check id>`).",
    "",
    "## Classes of results",
    "",
    CLASSES,
    "",
    "## Agent checks (`acp-kit check`)",
    "",
    ...agentChecks.flatMap(section),
    "## Agent checks in ACP v2 (`acp-kit check --protocol auto|2`)",
    "",
    "Negotiation runs first; with an agent that agreed to version 2 these checks run, with",
    `the version-neutral ones above (${v2AgentChecks
      .filter((definition) => v1Ids.has(definition.id))
      .map((definition) => `\`${definition.id}\``)
      .join(", ")}).`,
    "",
    ...v2Only.flatMap(section),
    "## Client checks (`acp-kit check-client`)",
    "",
    ...clientChecks.flatMap(section),
  ];
  return lines.join("\n").trimEnd() + "\n";
}
