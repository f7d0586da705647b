/**
 * The root entry's run-time exports are exactly the reviewed list in docs/public-api.md.
 * Needs the build (`npm run build`), as `npm test` does before vitest.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const page = fileURLToPath(new URL("../../docs/public-api.md", import.meta.url));
const built = fileURLToPath(new URL("../../packages/acp-kit/dist/index.js", import.meta.url));

/** The backticked names of the page's sections, up to "Not here on purpose". */
function listedNames(): string[] {
  const text = readFileSync(page, "utf8").split("## Not here on purpose")[0]!;
  const sections = text.split(/^## /m).slice(1);
  return sections.flatMap((section) =>
    [...section.matchAll(/`([A-Za-z_][A-Za-z0-9_]*)`/g)].map((match) => match[1]!),
  );
}

describe("the root entry's public surface", () => {
  it("is the reviewed list, no more and no less", async () => {
    if (!existsSync(built)) throw new Error("Build first (npm run build)");
    const exported = Object.keys((await import(pathToFileURL(built).href)) as object).sort();
    const listed = [...new Set(listedNames())].sort();
    expect(exported).toEqual(listed);
  });
});
