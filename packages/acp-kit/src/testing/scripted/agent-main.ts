/**
 * Entry point of the `acp-scripted-agent` executable:
 * `acp-scripted-agent <scenario.json>` or `acp-scripted-agent --demo`.
 * (The build adds the shebang; run it from source with `node --import tsx`.)
 *
 * @module
 */
// Through the package's own entry, so the executable shares the library's modules.
import { runScriptedAgentCli } from "acp-kit/testing";

process.exitCode = await runScriptedAgentCli(process.argv.slice(2));
