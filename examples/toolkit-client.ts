/**
 * A complete ACP client in a few lines, with acp-kit/node's `connectAgent`: it starts the
 * example agent, serves its file reads, writes and terminals inside the session's
 * directory, answers its permission request by policy, and folds everything the agent
 * streams into the session's thread.
 *
 * Run from the repository root: `node --import tsx examples/toolkit-client.ts`.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { messageText } from "acp-kit";
import { allowAll, connectAgent } from "acp-kit/node";

const dir = mkdtempSync(join(tmpdir(), "acp-kit-toolkit-"));
const notes = join(dir, "notes.txt");
writeFileSync(notes, "Shopping list\n- coffee\n- apples\n");

const agent = await connectAgent({
  command: process.execPath,
  args: ["--import", "tsx", "examples/agent.ts"],
  permissions: { policies: [allowAll()] },
});
try {
  const session = await agent.newSession({ cwd: dir });
  const { stopReason } = await session.prompt([
    { type: "text", text: "Please tidy up my notes." },
    { type: "resource_link", uri: pathToFileURL(notes).href, name: "notes.txt" },
  ]);

  for (const item of session.state.thread) {
    if (item.type === "message") console.log(`${item.role}> ${messageText(item)}`);
    else if (item.type === "tool_call") console.log(`[${item.status}] ${item.title}`);
  }
  console.log(`stop reason: ${stopReason}`);
  console.log(`notes.txt is now:\n${readFileSync(notes, "utf8")}`);
} finally {
  // Ends the agent and its terminals (`await using agent = ...` does it on Node 24+).
  await agent.close();
}
