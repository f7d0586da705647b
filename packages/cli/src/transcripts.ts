/**
 * What acp-kit records of each remembered session, so that `acp-kit sessions show`,
 * `history` and `export` need not open the agent: after each turn, the session's thread
 * as acp-kit saw it (messages, tool calls with their outcome), in one private file per
 * session under the state directory (`transcripts/`, 0700; files 0600).
 *
 * @module
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { threadSlice } from "acp-kit";
import type { SessionState } from "acp-kit";
import { contentText } from "./run/text.js";

/** One entry of a recorded transcript. */
export type TranscriptItem =
  | { readonly type: "message"; readonly role: "user" | "agent" | "thought"; readonly text: string }
  | {
      readonly type: "tool_call";
      readonly title: string;
      readonly kind: string;
      readonly status: string;
    };

/** A recorded transcript. */
export interface Transcript {
  readonly agent: string;
  readonly cwd: string;
  readonly sessionId: string;
  readonly title?: string;
  /** When it was last saved (ISO 8601). */
  readonly savedAt: string;
  readonly items: readonly TranscriptItem[];
}

/** The file of a session's transcript. */
export function transcriptFile(
  stateDir: string,
  agent: string,
  cwd: string,
  sessionId: string,
): string {
  const hash = createHash("sha256").update(`${agent}\0${cwd}\0${sessionId}`).digest("hex");
  return join(stateDir, "transcripts", `${hash.slice(0, 32)}.json`);
}

/** The items of a session's thread, as recorded. */
export function transcriptItems(state: SessionState): TranscriptItem[] {
  return threadSlice(state).flatMap((item): TranscriptItem[] => {
    if (item.type === "message") {
      return [{ type: "message", role: item.role, text: item.content.map(contentText).join("") }];
    }
    if (item.type === "tool_call") {
      return [
        {
          type: "tool_call",
          title: item.title,
          kind: item.kind,
          status: item.cancelled ? "cancelled" : item.status,
        },
      ];
    }
    return [];
  });
}

/** The first line of the first user message, shortened: a title for a session without one. */
export function titleFromPrompt(items: readonly TranscriptItem[]): string | undefined {
  const first = items.find((i) => i.type === "message" && i.role === "user");
  if (first?.type !== "message") return undefined;
  const line = first.text
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l !== "");
  if (line === undefined) return undefined;
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

/** Saves a transcript (through a temporary file and a rename). */
export async function saveTranscript(stateDir: string, transcript: Transcript): Promise<void> {
  const file = transcriptFile(stateDir, transcript.agent, transcript.cwd, transcript.sessionId);
  await mkdir(join(stateDir, "transcripts"), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    await writeFile(temp, JSON.stringify(transcript), { mode: 0o600 });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** A session's recorded transcript, or undefined when none was recorded. */
export async function readTranscript(
  stateDir: string,
  agent: string,
  cwd: string,
  sessionId: string,
): Promise<Transcript | undefined> {
  try {
    const parsed = JSON.parse(
      await readFile(transcriptFile(stateDir, agent, cwd, sessionId), "utf8"),
    ) as unknown;
    const t = parsed as Partial<Transcript>;
    return typeof t.sessionId === "string" && Array.isArray(t.items)
      ? (parsed as Transcript)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Forgets a session's transcript. */
export async function forgetTranscript(
  stateDir: string,
  agent: string,
  cwd: string,
  sessionId: string,
): Promise<void> {
  await rm(transcriptFile(stateDir, agent, cwd, sessionId), { force: true });
}

/** A transcript as plain text: `> ` before the user's prompts, a line per tool call. */
export function transcriptText(t: Transcript): string {
  return t.items
    .map((item) => {
      if (item.type === "tool_call") return `  [${item.status}] ${item.title || item.kind}`;
      if (item.role === "user") {
        return `\n${item.text
          .split("\n")
          .map((l) => `> ${l}`)
          .join("\n")}\n`;
      }
      if (item.role === "thought") return `  (thinking) ${item.text.trim()}`;
      return item.text.trim();
    })
    .join("\n")
    .trim();
}

/** A transcript as Markdown. */
export function transcriptMarkdown(t: Transcript): string {
  const head = [
    `# ${t.title ?? "Session"}`,
    "",
    `- Session: \`${t.sessionId}\``,
    `- Agent: \`${t.agent}\``,
    `- Directory: \`${t.cwd}\``,
    `- Saved: ${t.savedAt}`,
  ];
  const body = t.items.map((item) => {
    if (item.type === "tool_call") {
      return `- **${item.kind}** ${item.title || "(untitled)"}: ${item.status}`;
    }
    if (item.role === "user") {
      return `## You\n\n${item.text
        .split("\n")
        .map((l) => `> ${l}`)
        .join("\n")}`;
    }
    if (item.role === "thought") return `_Thinking:_ ${item.text.trim()}`;
    return `## Agent\n\n${item.text.trim()}`;
  });
  return [...head, "", ...body.flatMap((b) => [b, ""])].join("\n");
}

/** The user's prompts of a transcript, in order. */
export function transcriptPrompts(t: Transcript): string[] {
  return t.items.flatMap((i) => (i.type === "message" && i.role === "user" ? [i.text] : []));
}
