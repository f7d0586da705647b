/**
 * Property test: the generated v1 validators agree with ajv (see
 * test/support/schema-agreement.ts), and the open unions of v1 (`SessionUpdate`,
 * `ContentBlock`, `ToolCallContent`: the schema closes them, acp-kit lets unknown variants
 * through outside strict mode) behave as documented.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { METHOD_SPECS } from "../packages/acp-kit/src/schema/methods.gen.js";
import { runValidator } from "../packages/acp-kit/src/base/validation.js";
import { DEF_VALIDATORS } from "../packages/acp-kit/src/schema/validators.gen.js";
import { createAjvReference, loadUnstableSchema } from "./support/schema-arbitraries.js";
import { describeAgreement, seedOf, show } from "./support/schema-agreement.js";

const schema = loadUnstableSchema();
const ajvFor = createAjvReference(schema);

describeAgreement({
  label: "v1",
  schema,
  methodSpecs: METHOD_SPECS,
  defValidators: DEF_VALIDATORS,
});

describe("open unions", () => {
  const unions: readonly {
    type: "SessionUpdate" | "ContentBlock" | "ToolCallContent";
    tag: string;
    known: Readonly<Record<string, unknown>>;
  }[] = [
    {
      type: "SessionUpdate",
      tag: "sessionUpdate",
      known: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } },
    },
    { type: "ContentBlock", tag: "type", known: { type: "text", text: "hi" } },
    {
      type: "ToolCallContent",
      tag: "type",
      known: { type: "content", content: { type: "text", text: "hi" } },
    },
  ];

  for (const { type, tag, known } of unions) {
    const validate = DEF_VALIDATORS[type];
    const ajv = ajvFor(type);

    it(`${type}: a known variant is valid in both modes`, () => {
      expect(ajv(known)).toBe(true);
      expect(runValidator(validate, known, true)).toMatchObject({ ok: true, unknownVariants: 0 });
      expect(runValidator(validate, known, false)).toMatchObject({ ok: true, unknownVariants: 0 });
    });

    it(`${type}: an unknown tag string passes through non-strict only`, () => {
      fc.assert(
        fc.property(
          fc.string().filter((s) => !validTags(type).has(s)),
          fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }), {
            maxKeys: 3,
            noNullPrototype: true,
          }),
          (tagValue, rest) => {
            const value = { ...rest, [tag]: tagValue };
            expect(ajv(value)).toBe(false);
            expect(runValidator(validate, value, false)).toMatchObject({
              ok: true,
              unknownVariants: 1,
            });
            const strict = runValidator(validate, value, true);
            expect(strict.ok).toBe(false);
            if (!strict.ok)
              expect(strict.issues).toContainEqual(expect.objectContaining({ path: `/${tag}` }));
          },
        ),
        { seed: seedOf(type), numRuns: 100 },
      );
    });

    it(`${type}: a non-string or missing tag fails in both modes`, () => {
      const { [tag]: _tag, ...untagged } = known;
      const values: unknown[] = [
        untagged,
        ...[5, null, true, {}, [], ["text"]].map((t) => ({ ...known, [tag]: t })),
      ];
      for (const value of values) {
        expect(ajv(value), show(value)).toBe(false);
        expect(runValidator(validate, value, true).ok, show(value)).toBe(false);
        expect(runValidator(validate, value, false).ok, show(value)).toBe(false);
      }
    });

    it(`${type}: a known tag with an invalid body fails in both modes`, () => {
      const value = { [tag]: known[tag] };
      expect(ajv(value)).toBe(false);
      expect(runValidator(validate, value, true).ok).toBe(false);
      expect(runValidator(validate, value, false).ok).toBe(false);
    });
  }

  it("counts every unknown variant in a nested value", () => {
    const prompt = {
      sessionId: "s",
      prompt: [{ type: "future_a" }, { type: "text", text: "hi" }, { type: "future_b", data: 1 }],
    };
    expect(runValidator(DEF_VALIDATORS.PromptRequest, prompt, false)).toMatchObject({
      ok: true,
      unknownVariants: 2,
    });
    expect(runValidator(DEF_VALIDATORS.PromptRequest, prompt, true).ok).toBe(false);
    expect(ajvFor("PromptRequest")(prompt)).toBe(false);
    const notification = { sessionId: "s", update: { sessionUpdate: "future_update", x: [1] } };
    expect(runValidator(DEF_VALIDATORS.SessionNotification, notification, false)).toMatchObject({
      ok: true,
      unknownVariants: 1,
    });
    expect(runValidator(DEF_VALIDATORS.SessionNotification, notification, true).ok).toBe(false);
  });
});

/** The tags of a union's branches, read from the schema. */
function validTags(type: string): Set<string> {
  const tags = new Set<string>();
  const def = schema.$defs[type];
  for (const branch of def?.oneOf ?? []) {
    if (typeof branch === "boolean") continue;
    for (const prop of Object.values(branch.properties ?? {})) {
      if (typeof prop !== "boolean" && typeof prop.const === "string") tags.add(prop.const);
    }
  }
  return tags;
}
