import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generate } from "../../scripts/generate-schema.js";

const ROOT = join(import.meta.dirname, "..", "..");

describe("generated schema code", () => {
  it("is what the generator produces from the pinned schema (run `npm run generate` if not)", async () => {
    const files = await generate();
    expect(files.size).toBeGreaterThanOrEqual(3);
    for (const [path, content] of files) {
      const committed = readFileSync(join(ROOT, path), "utf8");
      expect(committed === content, `${path} is stale: run npm run generate`).toBe(true);
    }
  }, 60_000);

  it("carries no description text from the schema", async () => {
    const { createRequire } = await import("node:module");
    const require = createRequire(import.meta.url);
    const schema = require("@agentclientprotocol/sdk/schema/v1/schema.unstable.json") as unknown;
    const descriptions: string[] = [];
    JSON.stringify(schema, (key, value: unknown) => {
      if (key === "description" && typeof value === "string") descriptions.push(value);
      return value;
    });
    // Every sentence of 8+ words from the schema's descriptions must be absent from our output.
    const sentences = new Set(
      descriptions
        .flatMap((d) => d.split(/(?<=[.!?])\s+|\n+/))
        .map((s) => s.trim())
        .filter((s) => s.split(/\s+/).length >= 8),
    );
    const generated = [...(await generate()).values()].join("\n").replace(/\s+/g, " ");
    const copied = [...sentences].filter((s) => generated.includes(s.replace(/\s+/g, " ")));
    expect(copied).toEqual([]);
  }, 60_000);
});
