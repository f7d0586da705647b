/**
 * Entry point of the `acp-scripted-agent` executable:
 * `acp-scripted-agent <scenario.json>` or `acp-scripted-agent --demo`.
 * (The build adds the shebang; run it from source with `node --import tsx`.)
 *
 * @module
 */
import { runScriptedAgentCli } from "./scripted-agent-cli.js";

process.exitCode = await runScriptedAgentCli(process.argv.slice(2));
