// The API report of acp-kit's public entries (packages/acp-kit/etc/*.api.md), made by
// API Extractor from the built declarations. `npm run api:check` (part of `npm test`) fails
// when the public API differs from the committed report; `npm run api:update` rewrites it.
import { Extractor, ExtractorConfig } from "@microsoft/api-extractor";
import { fileURLToPath } from "node:url";

const update = process.argv.includes("--update");
const pkg = fileURLToPath(new URL("../packages/acp-kit/", import.meta.url));
const entries = [
  ["index", "acp-kit"],
  ["node", "acp-kit-node"],
  ["testing", "acp-kit-testing"],
  ["http", "acp-kit-http"],
  ["v2", "acp-kit-v2"],
  ["proxy", "acp-kit-proxy"],
  ["mcp", "acp-kit-mcp"],
];
let failed = false;
for (const [entry, report] of entries) {
  const config = ExtractorConfig.prepare({
    configObjectFullPath: undefined,
    packageJsonFullPath: `${pkg}package.json`,
    configObject: {
      projectFolder: pkg,
      mainEntryPointFilePath: `<projectFolder>/dist/${entry}.d.ts`,
      compiler: {
        overrideTsconfig: {
          compilerOptions: { lib: ["ES2023", "DOM"], types: ["node"], skipLibCheck: true },
        },
      },
      apiReport: {
        enabled: true,
        reportFileName: `${report}.api.md`,
        reportFolder: "<projectFolder>/etc/",
        reportTempFolder: "<projectFolder>/node_modules/.api-report/",
      },
      newlineKind: "lf",
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        extractorMessageReporting: {
          default: { logLevel: "none" },
          "ae-missing-release-tag": { logLevel: "none" },
        },
        tsdocMessageReporting: { default: { logLevel: "none" } },
        compilerMessageReporting: { default: { logLevel: "warning" } },
      },
    },
  });
  const result = Extractor.invoke(config, { localBuild: update, showVerboseMessages: false });
  if (!result.succeeded) {
    failed = true;
    process.stderr.write(
      `The public API of ${report.replace("acp-kit-", "acp-kit/")} changed: run \`npm run api:update\` and commit packages/acp-kit/etc/${report}.api.md\n`,
    );
  } else if (result.apiReportChanged) {
    process.stderr.write(`Updated packages/acp-kit/etc/${report}.api.md\n`);
  }
}
process.exitCode = failed ? 1 : 0;
