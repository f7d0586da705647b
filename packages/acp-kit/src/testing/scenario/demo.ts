/**
 * The built-in demo scenario: a friendly tour of the protocol against a real client in a
 * working directory (what `acp-kit demo` runs).
 *
 * @module
 */
import type { ScenarioStep, StreamOptions } from "./step-types.js";
import type { Scenario } from "./types.js";

/** The only file the demo writes (in the session's cwd), and only with permission. */
export const DEMO_FILE_NAME = "acp-kit-demo.md";

/** Streaming options of the demo's text: word by word, with a short pause. */
const SPOKEN: StreamOptions = { chunk: "word", delayMs: 18 };

const say = (text: string): ScenarioStep => ({ text, ...SPOKEN });

const DEMO_FILE_TEXT =
  "# acp-kit demo\n\n" +
  "The acp-kit demo agent wrote this file with your permission, through the client's\n" +
  "`fs/write_text_file`.\n\n" +
  "- Session: `${sessionId}`\n" +
  "- Directory: `${cwd}`\n\n" +
  "You can delete it.\n";

const INTRO =
  "Hi! I'm the **acp-kit demo agent**. I follow a script instead of a language model, so " +
  "everything you see is the Agent Client Protocol at work: streamed text, a plan, tool " +
  "calls, a permission request and a terminal.\n\n" +
  "Each piece of this reply reaches your client as one JSON-RPC notification, like this:\n\n" +
  "```json\n" +
  '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"${sessionId}",' +
  '"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Hi!"}}}}\n' +
  "```\n\n";

const SUMMARY =
  "## What just happened\n\n" +
  "1. **Streaming**: this text arrived in small `agent_message_chunk` updates.\n" +
  "2. **Plan**: the checklist is a `plan` update, sent whole on every change.\n" +
  "3. **Tool calls**: each action was a `tool_call` going from `pending` through " +
  "`in_progress` to `completed` (or `failed`).\n" +
  "4. **Files**: I read and wrote only through your client (`fs/read_text_file`, " +
  "`fs/write_text_file`), and changed nothing without your permission " +
  "(`session/request_permission`).\n" +
  "5. **Terminal**: the command ran in a terminal your client owns (`terminal/create`).\n\n" +
  "Next, try `/explain README.md`, or switch the session to **code** mode.\n";

const readReadme: ScenarioStep[] = [
  { planEntry: 0, status: "in_progress" },
  { toolCall: "Read README.md", kind: "read", locations: ["README.md"] },
  { toolUpdate: { status: "in_progress" } },
  {
    readFile: "README.md",
    limit: 8,
    saveAs: "readme",
    then: [
      { toolUpdate: { status: "completed", content: [{ text: "Read the first 8 lines" }] } },
      say("Here is how your README starts:\n\n````markdown\n${readme}\n````\n\n"),
    ],
    onError: [
      { toolUpdate: { status: "failed", content: [{ text: "${error}" }] } },
      say("I found no README.md I could read in `${cwd}`. That's fine, let's go on.\n\n"),
    ],
  },
  { planEntry: 0, status: "completed" },
];

const proposeEdit: ScenarioStep[] = [
  { planEntry: 1, status: "in_progress" },
  // What the file holds now, if it exists (a previous demo), for an honest diff.
  { readFile: DEMO_FILE_NAME, saveAs: "previous", onError: [] },
  {
    toolCall: `Write ${DEMO_FILE_NAME}`,
    kind: "edit",
    locations: [DEMO_FILE_NAME],
    content: [{ diff: DEMO_FILE_NAME, oldText: "${previous}", newText: DEMO_FILE_TEXT }],
  },
  say(
    `I'd like to write a small file, \`${DEMO_FILE_NAME}\`, in this directory. ` +
      "It's the only file I would touch, and only if you allow it.\n\n",
  ),
  {
    permission: ["allow_once", "reject_once"],
    allow: [
      { toolUpdate: { status: "in_progress" } },
      {
        writeFile: DEMO_FILE_NAME,
        content: DEMO_FILE_TEXT,
        then: [
          { toolUpdate: { status: "completed" } },
          say(`Thanks! \`${DEMO_FILE_NAME}\` is written.\n\n`),
        ],
        onError: [
          { toolUpdate: { status: "failed", content: [{ text: "${error}" }] } },
          say("The write failed (${error}), so nothing changed.\n\n"),
        ],
      },
    ],
    reject: [
      { toolUpdate: { status: "failed", content: [{ text: "Declined: nothing was written." }] } },
      say("No problem: I left your files alone.\n\n"),
    ],
    cancelled: [{ toolUpdate: { status: "failed" } }],
  },
  { planEntry: 1, status: "completed" },
];

const runCommand: ScenarioStep[] = [
  { planEntry: 2, status: "in_progress" },
  {
    toolCall: "Run node --version",
    kind: "execute",
    rawInput: { command: "node", args: ["--version"] },
  },
  { toolUpdate: { status: "in_progress" } },
  {
    terminal: "node",
    args: ["--version"],
    outputByteLimit: 4096,
    saveAs: "node",
    then: [
      { toolUpdate: { status: "completed", rawOutput: { exitCode: "${node.exitCode}" } } },
      say("The terminal says:\n\n```console\n$ node --version\n${node}\n```\n\n"),
    ],
    onError: [
      { toolUpdate: { status: "failed", content: [{ text: "${error}" }] } },
      say("I couldn't run a command here (${error}), so I skipped that step.\n\n"),
    ],
  },
  { planEntry: 2, status: "completed" },
];

const tour: ScenarioStep[] = [
  {
    thought: "The user wants a tour. Plan it, read a file, propose an edit, run a command.",
    ...SPOKEN,
  },
  {
    plan: [
      { content: "Read your README", priority: "high" },
      "Propose a small file, with your permission",
      "Run a harmless command in a terminal",
      "Sum up",
    ],
  },
  say(INTRO),
  ...readReadme,
  ...proposeEdit,
  ...runCommand,
  { planEntry: 3, status: "in_progress" },
  say(SUMMARY),
  { planEntry: 3, status: "completed" },
  { sessionInfo: { title: "acp-kit demo" } },
];

const explain: ScenarioStep[] = [
  { toolCall: "Read ${args}", kind: "read", locations: ["${args}"] },
  { toolUpdate: { status: "in_progress" } },
  {
    readFile: "${args}",
    limit: 40,
    saveAs: "file",
    then: [
      { toolUpdate: { status: "completed" } },
      say(
        "Here is the start of `${args}`, as your editor sees it (unsaved changes included):" +
          "\n\n````\n${file}\n````\n\n" +
          "I'm scripted, so I can't really explain it; a real agent would send this text " +
          "to its model.\n",
      ),
    ],
    onError: [
      { toolUpdate: { status: "failed", content: [{ text: "${error}" }] } },
      say("I couldn't read `${args}`: ${error}\n"),
    ],
  },
];

const switchMode = (mode: "ask" | "code"): ScenarioStep[] => [
  { mode },
  say(`Switched to **${mode}** mode. (Your client received a \`current_mode_update\`.)\n`),
];

/**
 * The demo scenario (a fresh copy each call). In a session's working directory it:
 * streams Markdown with a plan; reads `README.md` through the client (and goes on
 * without one); proposes to write {@link DEMO_FILE_NAME} as a diff and writes it only when
 * the user allows it (it never touches another file); runs `node --version` in a client
 * terminal shown in a tool call; offers `/explain <file>` and the modes `ask` and `code`.
 * Its text streams word by word with short delays (use `delayScale: 0` to turn them off).
 */
export function demoScenario(): Scenario {
  return structuredClone({
    name: "acp-kit demo",
    description: "A tour of the Agent Client Protocol, driven by a script.",
    agent: {
      info: { name: "acp-kit-demo", title: "acp-kit demo agent", version: "1.0.0" },
      capabilities: {
        loadSession: true,
        promptCapabilities: { embeddedContext: true },
        sessionCapabilities: { list: {}, resume: {}, close: {} },
      },
    },
    modes: {
      currentModeId: "ask",
      availableModes: [
        { id: "ask", name: "Ask", description: "Answer questions and explain" },
        { id: "code", name: "Code", description: "Propose changes (always with your permission)" },
      ],
    },
    commands: [
      {
        name: "explain",
        description: "Show the start of a file, read through your client",
        input: { hint: "a file path, e.g. README.md" },
      },
      { name: "help", description: "What this demo can do" },
    ],
    turns: [
      {
        name: "explain without a file",
        match: { regex: "^/explain\\s*$" },
        steps: [say("Tell me which file, for example `/explain README.md`.\n")],
      },
      { name: "explain", match: { command: "explain" }, steps: explain },
      {
        name: "help",
        match: { command: "help" },
        steps: [
          say(
            "Send me anything for the tour, `/explain <file>` to read a file, or ask to " +
              'switch to "code mode" or "ask mode".\n',
          ),
        ],
      },
      {
        name: "code mode",
        match: { regex: "\\bcode mode\\b", flags: "i" },
        steps: switchMode("code"),
      },
      {
        name: "ask mode",
        match: { regex: "\\bask mode\\b", flags: "i" },
        steps: switchMode("ask"),
      },
      { name: "tour", steps: tour },
    ],
  } satisfies Scenario);
}
