/**
 * The committed classic schema extract (scripts/schema/classic.schema.json, taken from the
 * official schema files of SDK 1.8.0 and 0.23.0) agrees with what the pinned SDK 2.4.0
 * ships for next-edit suggestions (the zod snapshot behind `experimental/nes`), and
 * carries no description text.
 */
import { readFileSync } from "node:fs";
import { validate as theirNes } from "@agentclientprotocol/sdk/experimental/nes";
import { describe, expect, it } from "vitest";
import * as z from "zod/v4";
import { CLASSIC_SCHEMA_PATH } from "../../scripts/schema/load.js";
import {
  LEGACY_METHOD_SPECS,
  METHOD_SPECS,
} from "../../packages/acp-kit/src/schema/methods.gen.js";

interface Node {
  properties?: Record<string, unknown>;
  required?: string[];
  oneOf?: { properties?: Record<string, { const?: unknown }> }[];
  anyOf?: { const?: unknown }[];
  enum?: unknown[];
  "x-method"?: string;
  "x-legacy-method"?: string;
}

const extract = JSON.parse(readFileSync(CLASSIC_SCHEMA_PATH, "utf8")) as {
  $defs: Record<string, Node>;
  extend: Record<string, Record<string, unknown>>;
};

/** The official 2.4.0 NES zod snapshot as JSON Schema, by definition name. */
function officialNesDefs(): Record<string, Node> {
  const registry = z.registry<{ id: string }>();
  for (const [name, schema] of Object.entries(theirNes)) {
    if (schema instanceof z.ZodType) registry.add(schema, { id: name.replace(/^z/, "") });
  }
  return z.toJSONSchema(registry, { io: "input", unrepresentable: "any" }).schemas as Record<
    string,
    Node
  >;
}

const sorted = (values: Iterable<string> | undefined): string[] => [...(values ?? [])].sort();

describe("the classic schema extract", () => {
  it("has exactly the NES and document definitions of the official 2.4.0 snapshot, same fields", () => {
    const official = officialNesDefs();
    const ours = Object.keys(extract.$defs).filter(
      (name) => extract.$defs[name]?.["x-legacy-method"] === undefined,
    );
    const legacyOnly = new Set(["ModelId", "ModelInfo", "SessionModelState"]);
    // SessionId is shared with the core schema, so the extract does not repeat it.
    expect(sorted(ours.filter((n) => !legacyOnly.has(n)))).toEqual(
      sorted(Object.keys(official).filter((n) => n !== "SessionId")),
    );
    for (const name of ours) {
      const theirs = official[name];
      if (theirs === undefined) continue;
      const mine = extract.$defs[name]!;
      expect(sorted(Object.keys(mine.properties ?? {})), `${name} properties`).toEqual(
        sorted(Object.keys(theirs.properties ?? {})),
      );
      expect(sorted(mine.required), `${name} required`).toEqual(sorted(theirs.required));
    }
  });

  it("extends the capabilities with the fields the official NES entry adds", () => {
    expect(sorted(Object.keys(extract.extend.ClientCapabilities ?? {}))).toEqual([
      "nes",
      "positionEncodings",
    ]);
    expect(sorted(Object.keys(extract.extend.AgentCapabilities ?? {}))).toEqual([
      "nes",
      "positionEncoding",
    ]);
  });

  it("feeds the method table: nes/* and document/* as unstable agent methods, session/set_model as legacy", () => {
    const nes = METHOD_SPECS.filter((s) => /^(nes|document)\//.test(s.method));
    expect(nes.map((s) => `${s.method} ${s.kind}`).sort()).toEqual([
      "document/didChange notification",
      "document/didClose notification",
      "document/didFocus notification",
      "document/didOpen notification",
      "document/didSave notification",
      "nes/accept notification",
      "nes/close request",
      "nes/reject notification",
      "nes/start request",
      "nes/suggest request",
    ]);
    expect(nes.every((s) => s.handledBy === "agent" && !s.stable)).toBe(true);
    expect(LEGACY_METHOD_SPECS.map((s) => [s.method, s.handledBy, s.kind])).toEqual([
      ["session/set_model", "agent", "request"],
    ]);
    expect(METHOD_SPECS.some((s) => s.method === "session/set_model")).toBe(false);
  });

  it("carries no description text (a property may be named `description`)", () => {
    const found: string[] = [];
    const walk = (node: unknown, path: string): void => {
      if (Array.isArray(node)) node.forEach((item, i) => walk(item, `${path}/${i}`));
      else if (node !== null && typeof node === "object") {
        for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
          if (key === "description" && typeof value === "string") found.push(path);
          if (key === "properties" && value !== null && typeof value === "object") {
            for (const [name, sub] of Object.entries(value))
              walk(sub, `${path}/properties/${name}`);
          } else walk(value, `${path}/${key}`);
        }
      }
    };
    walk(extract, "");
    expect(found).toEqual([]);
    expect(JSON.stringify(extract.$defs.ModelInfo?.properties)).toContain('"description"');
  });
});
