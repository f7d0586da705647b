/**
 * Property test: the generated ACP v2 validators (packages/acp-kit/src/schema/v2, from the
 * pinned SDK's `schema/v2/schema.unstable.json`) agree with ajv (see
 * test/support/schema-agreement.ts). In v2 the schema itself keeps its unions open (an
 * `other` branch beside the known variants), so unknown variants are valid in both modes;
 * the shapes v1 did not have (a property pinned per variant, `minItems`, `contentEncoding`)
 * are checked by name below.
 */
import { describe, expect, it } from "vitest";
import { runValidator } from "../packages/acp-kit/src/base/validation.js";
import { METHOD_SPECS } from "../packages/acp-kit/src/schema/v2/methods.gen.js";
import { DEF_VALIDATORS } from "../packages/acp-kit/src/schema/v2/validators.gen.js";
import { createAjvReference, loadUnstableSchemaV2 } from "./support/schema-arbitraries.js";
import { describeAgreement, show } from "./support/schema-agreement.js";

const schema = loadUnstableSchemaV2();
const ajvFor = createAjvReference(schema);

describeAgreement({
  label: "v2",
  schema,
  methodSpecs: METHOD_SPECS,
  defValidators: DEF_VALIDATORS,
});

/** Checks that ajv and the validator (strict and not) agree on `valid` for each value. */
function agree(type: keyof typeof DEF_VALIDATORS, valid: boolean, values: unknown[]): void {
  const ajv = ajvFor(type);
  for (const value of values) {
    expect(ajv(value), `ajv, ${type}: ${show(value)}`).toBe(valid);
    expect(runValidator(DEF_VALIDATORS[type], value, true).ok, show(value)).toBe(valid);
    expect(runValidator(DEF_VALIDATORS[type], value, false).ok, show(value)).toBe(valid);
  }
}

describe("v2 shapes by name", () => {
  it("keeps unknown variants of open unions in both modes (the schema's own `other` branch)", () => {
    agree("SessionUpdate", true, [
      {
        sessionUpdate: "agent_message_chunk",
        messageId: "m1",
        content: { type: "text", text: "hi" },
      },
      { sessionUpdate: "_vendor_update", anything: [1] },
      { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" },
      { sessionUpdate: "state_update", state: "_paused_by_vendor" },
    ]);
    agree("SessionUpdate", false, [
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } },
      { sessionUpdate: 5 },
      {},
    ]);
  });

  it("checks a property pinned per variant (IdleStateUpdate's stopReason, DiffChange's operation)", () => {
    // A known stop reason brings its payload's rules; an unknown one (`_custom`) passes as
    // the schema's `other` branch; `error` without its payload is valid, a wrong one is not.
    agree("IdleStateUpdate", true, [
      { stopReason: "end_turn" },
      { stopReason: "error", error: { code: -32603, message: "the model failed" } },
      { stopReason: "error" },
      { stopReason: "_custom" },
      { stopReason: null },
      {},
    ]);
    agree("IdleStateUpdate", false, [{ stopReason: 5 }, { stopReason: "error", error: 5 }]);
    agree("DiffChange", true, [
      { operation: "add", path: "/p/a.ts" },
      { operation: "move", oldPath: "/p/a.ts", path: "/p/b.ts" },
      { operation: "_vendor_op" },
    ]);
    agree("DiffChange", false, [
      { operation: "move", path: "/p/b.ts" },
      { operation: "add" },
      { path: "/p/a.ts" },
    ]);
  });

  it("checks minItems, and leaves contentEncoding an annotation", () => {
    agree("PromptRequest", false, [{ sessionId: "s", prompt: [] }]);
    agree("PromptRequest", true, [{ sessionId: "s", prompt: [{ type: "text", text: "hi" }] }]);
    agree("BlobResourceContents", true, [{ uri: "file:///a", blob: "not base64 at all!" }]);
  });
});
