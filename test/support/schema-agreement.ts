/**
 * The property behind test/schema-property*.test.ts: the generated validators of one
 * protocol version agree with ajv (JSON Schema 2020-12, set up with our format decisions)
 * on instances generated from the official schema and on mutations of them, report issues
 * at JSON Pointers that exist, and only differ from strict mode by letting unknown
 * variants of the open unions through.
 *
 * Every method's params and result type gets NUM_RUNS runs, every other definition with a
 * validator a quarter of that. Each run generates one instance and applies 1-3 mutations
 * to it, checking the instance and every intermediate mutant.
 *
 * Environment: ACP_SCHEMA_PROPERTY_REPORT=1 prints per-type counts;
 * ACP_SCHEMA_PROPERTY_RUNS=<n> and ACP_SCHEMA_PROPERTY_SEED=<n> are for long hunts.
 */
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { MethodSpec } from "../../packages/acp-kit/src/schema/method-spec.js";
import {
  runValidator,
  validatorState,
  type RawValidator,
  type ValidationIssue,
} from "../../packages/acp-kit/src/base/validation.js";
import {
  applyMutation,
  checkIssuePath,
  createAjvReference,
  mutationContext,
  mutationName,
  mutationSpec,
  SchemaArbitraries,
  type MutationSpec,
  type RootSchema,
} from "./schema-arbitraries.js";

/** Runs per method params/result type (ACP_SCHEMA_PROPERTY_RUNS overrides, for long hunts). */
export const NUM_RUNS = Number(process.env.ACP_SCHEMA_PROPERTY_RUNS ?? 250);
/** Runs for each other definition. */
const DEF_RUNS = Math.max(1, Math.round(NUM_RUNS / 4));
/** Mixed into every seed (ACP_SCHEMA_PROPERTY_SEED overrides, for long hunts). */
const SEED = Number(process.env.ACP_SCHEMA_PROPERTY_SEED ?? 0);
/** The share of generated instances ajv must accept, per type (the generator is not vacuous). */
const MIN_VALID_SHARE = 0.5;
/**
 * The share of mutated instances ajv must reject, per type and over all types. Types made
 * of optional, open fields (`{ _meta?: object | null }`) accept most mutations, hence the
 * low per-type floor.
 */
const MIN_INVALID_MUTATED_SHARE = 0.1;
const MIN_INVALID_MUTATED_SHARE_OVERALL = 0.35;

/** What one protocol version's agreement test runs on. */
export interface AgreementOptions {
  /** Names the version in the test titles. */
  readonly label: string;
  /** The schema file the validators were generated from. */
  readonly schema: RootSchema;
  /** The version's method table. */
  readonly methodSpecs: readonly MethodSpec[];
  /** The version's validators by definition name. */
  readonly defValidators: Readonly<Record<string, RawValidator>>;
}

interface Target {
  readonly type: string;
  readonly validate: RawValidator;
  readonly methods: string[];
}

function collectTargets(METHOD_SPECS: readonly MethodSpec[]): Target[] {
  const byType = new Map<string, Target>();
  const add = (type: string, validate: RawValidator, label: string): void => {
    const known = byType.get(type);
    if (known !== undefined) known.methods.push(label);
    else byType.set(type, { type, validate, methods: [label] });
  };
  for (const spec of METHOD_SPECS) {
    add(spec.paramsType, spec.validateParams, `${spec.method} params`);
    if (spec.resultType !== undefined && spec.validateResult !== undefined) {
      add(spec.resultType, spec.validateResult, `${spec.method} result`);
    }
  }
  return [...byType.values()];
}

/** Runs a validator's recording pass directly, to check it agrees with the fast pass. */
function recordingPass(
  validate: RawValidator,
  value: unknown,
  strict: boolean,
): { ok: boolean; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  validatorState.strict = strict;
  validatorState.unknownVariants = 0;
  validatorState.issues = issues;
  try {
    return { ok: validate(value, ""), issues };
  } finally {
    validatorState.issues = [];
  }
}

/** A value as fast-check prints it. */
export function show(value: unknown): string {
  return fc.stringify(value);
}

function checkIssues(
  type: string,
  value: unknown,
  issues: readonly ValidationIssue[],
  mode: string,
): void {
  expect(
    issues.length,
    `${type} (${mode}): no issues for an invalid value ${show(value)}`,
  ).toBeGreaterThan(0);
  for (const issue of issues) {
    const problem = checkIssuePath(value, issue.path, issue.message);
    expect(
      problem,
      `${type} (${mode}): bad issue path ${show(issue)} for ${show(value)}`,
    ).toBeUndefined();
  }
}

/** Compares our verdicts with ajv's on one value; returns ajv's verdict. */
function compare(target: Target, ajv: (value: unknown) => boolean, value: unknown): boolean {
  const { type, validate } = target;
  const expected = ajv(value);
  const strict = runValidator(validate, value, true);
  if (strict.ok !== expected) {
    throw new Error(
      `${type}: ajv says ${expected ? "valid" : "invalid"}, strict validator says ${strict.ok ? "valid" : "invalid"} for ${show(value)}`,
    );
  }
  if (!strict.ok) checkIssues(type, value, strict.issues, "strict");
  const strictRecording = recordingPass(validate, value, true);
  expect(
    strictRecording.ok,
    `${type}: strict recording pass disagrees with the fast pass on ${show(value)}`,
  ).toBe(strict.ok);
  if (strictRecording.ok) expect(strictRecording.issues).toEqual([]);
  else checkIssues(type, value, strictRecording.issues, "strict recording");

  const loose = runValidator(validate, value, false);
  if (strict.ok) {
    expect(
      loose.ok,
      `${type}: valid in strict mode but invalid in non-strict mode: ${show(value)}`,
    ).toBe(true);
    if (loose.ok) {
      expect(
        loose.unknownVariants,
        `${type}: unknown variants counted in a strictly valid value: ${show(value)}`,
      ).toBe(0);
    }
  } else if (loose.ok) {
    // Non-strict may only accept what strict rejects because of unknown variants.
    expect(
      loose.unknownVariants,
      `${type}: non-strict accepted an invalid value without unknown variants: ${show(value)}`,
    ).toBeGreaterThan(0);
  } else {
    checkIssues(type, value, loose.issues, "non-strict");
  }
  const looseRecording = recordingPass(validate, value, false);
  expect(
    looseRecording.ok,
    `${type}: non-strict recording pass disagrees with the fast pass on ${show(value)}`,
  ).toBe(loose.ok);
  return expected;
}

/** A stable seed per type name. */
export function seedOf(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return h | 0;
}

interface Counts {
  generated: number;
  valid: number;
  mutated: number;
  mutatedInvalid: number;
  unknownVariantPassThrough: number;
}

/** Defines the agreement tests of one protocol version's generated validators. */
export function describeAgreement(options: AgreementOptions): void {
  const { label, schema, methodSpecs: METHOD_SPECS, defValidators: DEF_VALIDATORS } = options;
  const ajvFor = createAjvReference(schema);
  const arbitraries = new SchemaArbitraries(schema.$defs);
  const ctx = mutationContext(schema);
  const report: [string, Counts][] = [];

  /** Runs the property on one type; returns the counts. */
  function checkTarget(target: Target, numRuns: number): Counts {
    const ajv = ajvFor(target.type);
    const counts: Counts = {
      generated: 0,
      valid: 0,
      mutated: 0,
      mutatedInvalid: 0,
      unknownVariantPassThrough: 0,
    };
    const property = fc.property(
      arbitraries.forDef(target.type),
      fc.array(mutationSpec, { minLength: 1, maxLength: 3 }),
      (value: unknown, mutations: MutationSpec[]) => {
        counts.generated++;
        if (compare(target, ajv, value)) counts.valid++;
        let current = value;
        const applied: string[] = [];
        for (const m of mutations) {
          current = applyMutation(current, m, ctx);
          applied.push(mutationName(m));
          counts.mutated++;
          let valid: boolean;
          try {
            valid = compare(target, ajv, current);
          } catch (error) {
            throw new Error(
              `after mutations [${applied.join(", ")}]: ${(error as Error).message}`,
              {
                cause: error,
              },
            );
          }
          if (!valid) {
            counts.mutatedInvalid++;
            if (runValidator(target.validate, current, false).ok)
              counts.unknownVariantPassThrough++;
          }
        }
      },
    );
    fc.assert(property, { seed: seedOf(target.type) ^ SEED, numRuns });
    return counts;
  }

  describe(`generated ${label} validators agree with ajv (JSON Schema 2020-12)`, () => {
    const targets = collectTargets(METHOD_SPECS);

    it("covers the params and result type of every method", () => {
      expect(targets.length).toBeGreaterThan(50);
      for (const spec of METHOD_SPECS) {
        expect(targets.some((t) => t.type === spec.paramsType)).toBe(true);
        if (spec.resultType !== undefined)
          expect(targets.some((t) => t.type === spec.resultType)).toBe(true);
      }
    });

    for (const target of targets) {
      it(`${target.type} (${target.methods.join(", ")})`, () => {
        const counts = checkTarget(target, NUM_RUNS);
        report.push([target.type, counts]);
        expect(
          counts.valid / counts.generated,
          `${target.type}: too few generated instances are valid`,
        ).toBeGreaterThanOrEqual(MIN_VALID_SHARE);
        expect(
          counts.mutatedInvalid / counts.mutated,
          `${target.type}: too few mutated instances are invalid`,
        ).toBeGreaterThanOrEqual(MIN_INVALID_MUTATED_SHARE);
      });
    }

    // Every other definition on its own, so that mutations at its root get a fair share.
    const covered = new Set(targets.map((t) => t.type));
    for (const [type, validate] of Object.entries(DEF_VALIDATORS)) {
      if (covered.has(type)) continue;
      it(`definition ${type}`, () => {
        const counts = checkTarget({ type, validate, methods: [] }, DEF_RUNS);
        report.push([type, counts]);
        expect(
          counts.valid / counts.generated,
          `${type}: too few generated instances are valid`,
        ).toBeGreaterThanOrEqual(MIN_VALID_SHARE);
      });
    }

    it("mutations make most instances invalid over all types", () => {
      const mutated = report.reduce((n, [, c]) => n + c.mutated, 0);
      const invalid = report.reduce((n, [, c]) => n + c.mutatedInvalid, 0);
      expect(report.length).toBe(Object.keys(DEF_VALIDATORS).length);
      expect(invalid / mutated).toBeGreaterThanOrEqual(MIN_INVALID_MUTATED_SHARE_OVERALL);
    });

    afterAll(() => {
      if (process.env.ACP_SCHEMA_PROPERTY_REPORT === undefined) return;
      const rows = report.map(([type, c]) => ({
        type,
        generated: c.generated,
        validShare: (c.valid / c.generated).toFixed(2),
        mutated: c.mutated,
        invalidShare: (c.mutatedInvalid / c.mutated).toFixed(2),
        unknownVariantPassThrough: c.unknownVariantPassThrough,
      }));
      console.table(rows);
    });
  });
}
