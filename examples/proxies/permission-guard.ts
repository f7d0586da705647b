/**
 * A permission guard: a proxy that answers the agent's permission requests by the rules
 * of a file, in the format of `acp-kit run --policy FILE` (`allow edit src/**`,
 * `deny execute *`, first match... see docs/cli.md), and passes the requests no rule
 * decides to the client. Put it in front of any agent:
 *
 *   acp-kit conductor agent "node --import tsx examples/proxies/permission-guard.ts --rules rules.txt" "my-agent"
 *   node --import tsx examples/proxies/permission-guard.ts --rules rules.txt -- my-agent   (standalone)
 *
 * It says on stderr what it decided (stdout carries the protocol).
 */
import { readFileSync } from "node:fs";
import { decidePermission, permissionContext, permissionRules, runProxy } from "acp-kit/node";
import { defineProxy } from "acp-kit/proxy";

const at = process.argv.indexOf("--rules");
const file = at < 0 ? undefined : process.argv[at + 1];
if (file === undefined) {
  console.error("usage: permission-guard.ts --rules FILE [-- <agent command...>]");
  process.exit(2);
}
const policy = permissionRules(readFileSync(file, "utf8"));
/** Each session's directory: the rules' paths are relative to it. */
const cwds = new Map<string, string>();

await runProxy(
  defineProxy()
    .onRequestFromClient("session/new", async ({ params, forward }) => {
      const answer = await forward();
      cwds.set(answer.sessionId, params.cwd);
      return answer;
    })
    .onRequestFromAgent("session/request_permission", ({ params, forward }) => {
      const decided = decidePermission(
        params,
        policy,
        permissionContext(params.sessionId, cwds.get(params.sessionId)),
      );
      if (decided === undefined) return forward(); // no rule says: the person decides
      const { outcome } = decided;
      const chosen = outcome.outcome === "selected" ? outcome.optionId : "cancelled";
      console.error(
        `[permission-guard] ${params.toolCall.title ?? params.toolCall.toolCallId}: ${chosen}`,
      );
      return decided;
    }),
);
