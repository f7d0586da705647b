/**
 * Test support for the schema property test: the official ACP JSON Schema, an ajv
 * reference validator set up with our semantics decisions, a JSON Schema -> fast-check
 * arbitrary converter for the keyword subset the ACP schema uses, JSON mutations, and a
 * JSON Pointer checker for reported issue paths.
 */
import Ajv2020 from "ajv/dist/2020.js";
import fc from "fast-check";
import {
  loadMergedUnstableSchema,
  loadUnstableSchemaV2 as loadV2,
} from "../../scripts/schema/load.js";

/** A JSON Schema node as the ACP schema uses it. */
export type SchemaNode = boolean | SchemaObject;

/** The keywords of a schema object that matter for generation. */
export interface SchemaObject {
  readonly $ref?: string;
  readonly type?: string | readonly string[];
  readonly const?: unknown;
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: SchemaNode;
  readonly items?: SchemaNode;
  readonly allOf?: readonly SchemaNode[];
  readonly anyOf?: readonly SchemaNode[];
  readonly oneOf?: readonly SchemaNode[];
  readonly not?: SchemaNode;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly minItems?: number;
  readonly format?: unknown;
}

/** The schema file: its definitions are what the validators are generated from. */
export interface RootSchema extends SchemaObject {
  readonly $defs: Readonly<Record<string, SchemaObject>>;
}

/**
 * Reads `schema.unstable.json` of the pinned `@agentclientprotocol/sdk`, merged with the
 * classic extract (NES, documents, `session/set_model`) exactly as the generator merges it.
 */
export function loadUnstableSchema(): RootSchema {
  return loadMergedUnstableSchema();
}

/** Reads v2's `schema.unstable.json` of the pinned `@agentclientprotocol/sdk`, as shipped. */
export function loadUnstableSchemaV2(): RootSchema {
  return loadV2();
}

/** Integer formats assert their range (our decision, mirrored in the ajv set-up). */
export const INTEGER_FORMATS: Readonly<Record<string, readonly [number, number]>> = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  uint16: [0, 65535],
  uint32: [0, 2 ** 32 - 1],
  int64: [-(2 ** 63), 2 ** 63 - 1],
  uint64: [0, 2 ** 64 - 1],
};

const SCHEMA_ID = "https://acp-kit.invalid/schema.unstable.json";

/**
 * An ajv (draft 2020-12) validator for each definition, configured like our compiler:
 * integer formats assert their range, `double`, `uri`, `regex` and `date-time` are
 * annotations (as is `contentEncoding`), unknown
 * keywords (`discriminator`, `x-*`) are ignored.
 */
export function createAjvReference(
  root: RootSchema,
): (name: string) => (value: unknown) => boolean {
  const ajv = new Ajv2020({ strict: false, logger: false });
  for (const [name, [lo, hi]] of Object.entries(INTEGER_FORMATS)) {
    ajv.addFormat(name, {
      type: "number",
      validate: (x: number) => Number.isInteger(x) && x >= lo && x <= hi,
    });
  }
  ajv.addFormat("double", { type: "number", validate: () => true });
  ajv.addFormat("uri", true);
  ajv.addFormat("regex", true);
  ajv.addFormat("date-time", true);
  ajv.addSchema({ ...root, $id: SCHEMA_ID });
  const cache = new Map<string, (value: unknown) => boolean>();
  return (name) => {
    const known = cache.get(name);
    if (known !== undefined) return known;
    const validate = ajv.getSchema(`${SCHEMA_ID}#/$defs/${name}`);
    if (validate === undefined) throw new Error(`ajv has no schema for ${name}`);
    const fn = (value: unknown): boolean => validate(value) === true;
    cache.set(name, fn);
    return fn;
  };
}

function refName(ref: string): string {
  const prefix = "#/$defs/";
  if (!ref.startsWith(prefix)) throw new Error(`Unsupported $ref ${ref}`);
  return ref.slice(prefix.length);
}

/** A non-null, non-array object. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Object keys that exercise JSON Pointer escaping (and ordinary ones). */
const ODD_KEYS = ["a/b", "~", "~1", "x~y/z", "", " ", "é", "😀", "0"];
const extraKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...ODD_KEYS),
  fc.string({ maxLength: 6 }),
  fc.string({ unit: "binary", maxLength: 3 }),
);

const jsonPrimitive: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 4 }),
);

/**
 * Free-form JSON (for `true` schemas and open extra properties): kept small, so that
 * mutations mostly land where the schema constrains something.
 */
function anyJson(depth: number): fc.Arbitrary<unknown> {
  if (depth <= 0) return jsonPrimitive;
  return fc.oneof(
    { arbitrary: jsonPrimitive, weight: 3 },
    { arbitrary: fc.array(jsonPrimitive, { maxLength: 2 }), weight: 1 },
    {
      arbitrary: fc.dictionary(fc.string({ maxLength: 4 }), jsonPrimitive, {
        maxKeys: 2,
        noNullPrototype: true,
      }),
      weight: 1,
    },
  );
}

function stringArbitrary(minLength: number): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ minLength, maxLength: minLength + 8 }),
    // Arbitrary code points: astral ones are surrogate pairs in JavaScript strings.
    fc.string({ unit: "binary", minLength, maxLength: minLength + 4 }),
    fc.string({ unit: "grapheme", minLength, maxLength: minLength + 3 }),
  );
}

const INTERESTING_INTEGERS = [
  0,
  1,
  -1,
  65535,
  65536,
  2 ** 31 - 1,
  -(2 ** 31),
  2 ** 32 - 1,
  2 ** 32,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
  2 ** 62,
  -(2 ** 63),
  2 ** 63,
  2 ** 64,
];

function integerArbitrary(lo: number, hi: number): fc.Arbitrary<number> {
  const options: fc.Arbitrary<number>[] = [];
  const smallLo = Math.max(lo, -(2 ** 31));
  const smallHi = Math.min(hi, 2 ** 31 - 1);
  if (smallLo <= smallHi) {
    options.push(fc.integer({ min: smallLo, max: Math.min(smallHi, Math.max(smallLo, 0) + 100) }));
    options.push(fc.integer({ min: smallLo, max: smallHi }));
  }
  const edges = INTERESTING_INTEGERS.filter((x) => x >= lo && x <= hi);
  for (const x of [lo, hi]) if (Number.isFinite(x) && Number.isInteger(x)) edges.push(x);
  if (edges.length > 0) options.push(fc.constantFrom(...edges));
  if (lo <= Number.MAX_SAFE_INTEGER && hi >= Number.MIN_SAFE_INTEGER) {
    options.push(
      fc
        .maxSafeInteger()
        .map((x) =>
          Math.min(
            Math.max(x, Math.ceil(Math.max(lo, Number.MIN_SAFE_INTEGER))),
            Math.floor(Math.min(hi, Number.MAX_SAFE_INTEGER)),
          ),
        ),
    );
  }
  if (options.length === 0) throw new Error(`Empty integer range [${lo}, ${hi}]`);
  return fc.oneof(...options);
}

function numberArbitrary(lo: number, hi: number): fc.Arbitrary<number> {
  return fc.oneof(
    fc.double({
      noNaN: true,
      noDefaultInfinity: true,
      min: Number.isFinite(lo) ? lo : -Number.MAX_VALUE,
      max: Number.isFinite(hi) ? hi : Number.MAX_VALUE,
    }),
    integerArbitrary(lo, hi),
  );
}

/** Merges the values generated for the parts of one node (own keywords, $ref, allOf, unions). */
function mergeParts(values: readonly unknown[]): unknown {
  if (values.every(isPlainObject)) return Object.assign({}, ...values) as unknown;
  return values.find((v) => !isPlainObject(v));
}

/**
 * Converts schema definitions to fast-check arbitraries of (mostly) valid instances.
 *
 * Objects get their required properties, a random subset of optional ones and sometimes
 * extra unknown properties; arrays up to 3 items; unions pick a branch; `allOf`, `$ref`
 * and union parts of one node are generated separately and merged when they are
 * objects. `not` is ignored (the ajv filter decides). Depth counts object and array
 * levels; past `maxDepth` only required properties and empty arrays are generated.
 */
export class SchemaArbitraries {
  private readonly memo = new WeakMap<object, Map<number, fc.Arbitrary<unknown>>>();

  constructor(
    private readonly defs: Readonly<Record<string, SchemaObject>>,
    private readonly maxDepth = 5,
  ) {}

  /** Instances of definition `name`. */
  forDef(name: string): fc.Arbitrary<unknown> {
    return this.node(this.def(name), this.maxDepth);
  }

  private def(name: string): SchemaObject {
    const def = this.defs[name];
    if (def === undefined) throw new Error(`Unknown definition ${name}`);
    return def;
  }

  private node(node: SchemaNode, depth: number): fc.Arbitrary<unknown> {
    if (typeof node === "boolean") return anyJson(depth);
    if (depth < -8)
      throw new Error("Schema recursion through required properties does not terminate");
    let byDepth = this.memo.get(node);
    if (byDepth === undefined) {
      byDepth = new Map();
      this.memo.set(node, byDepth);
    }
    const known = byDepth.get(depth);
    if (known !== undefined) return known;
    const arb = this.build(node, depth);
    byDepth.set(depth, arb);
    return arb;
  }

  private build(node: SchemaObject, depth: number): fc.Arbitrary<unknown> {
    if (node.const !== undefined) return fc.constant(node.const);
    const parts: fc.Arbitrary<unknown>[] = [];
    if (node.$ref !== undefined) parts.push(this.node(this.def(refName(node.$ref)), depth));
    for (const sub of node.allOf ?? []) parts.push(this.node(sub, depth));
    for (const branches of [node.anyOf, node.oneOf]) {
      if (branches === undefined) continue;
      const arbs = branches.map((b) => this.node(b, depth));
      parts.push(fc.oneof(...arbs));
    }
    // Own keywords last, so that a tagged branch's tag constant wins the merge.
    const own = this.own(node, depth);
    if (own !== undefined) parts.push(own);
    const [first, ...rest] = parts;
    if (first === undefined) return anyJson(depth);
    if (rest.length === 0) return first;
    return fc.tuple(...parts).map(mergeParts);
  }

  private own(node: SchemaObject, depth: number): fc.Arbitrary<unknown> | undefined {
    let types: readonly string[];
    if (node.type !== undefined) types = typeof node.type === "string" ? [node.type] : node.type;
    else if (
      node.properties !== undefined ||
      node.required !== undefined ||
      node.additionalProperties !== undefined
    ) {
      types = ["object"];
    } else if (node.items !== undefined) types = ["array"];
    else return undefined;
    return fc.oneof(...types.map((t) => this.typed(t, node, depth)));
  }

  private typed(type: string, node: SchemaObject, depth: number): fc.Arbitrary<unknown> {
    switch (type) {
      case "null":
        return fc.constant(null);
      case "boolean":
        return fc.boolean();
      case "string":
        return stringArbitrary(node.minLength ?? 0);
      case "integer":
      case "number": {
        let lo = node.minimum ?? -Infinity;
        let hi = node.maximum ?? Infinity;
        const range = typeof node.format === "string" ? INTEGER_FORMATS[node.format] : undefined;
        if (range !== undefined) {
          lo = Math.max(lo, range[0]);
          hi = Math.min(hi, range[1]);
        }
        return type === "integer" ? integerArbitrary(lo, hi) : numberArbitrary(lo, hi);
      }
      case "array":
        return fc.array(this.node(node.items ?? true, depth - 1), {
          minLength: node.minItems ?? 0,
          maxLength: Math.max(node.minItems ?? 0, depth > 0 ? 3 : 0),
        });
      case "object":
        return this.object(node, depth);
      default:
        throw new Error(`Unknown JSON type ${type}`);
    }
  }

  private object(node: SchemaObject, depth: number): fc.Arbitrary<Record<string, unknown>> {
    const props = node.properties ?? {};
    const required = new Set(node.required ?? []);
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    const requiredKeys: string[] = [];
    for (const [key, sub] of Object.entries(props)) {
      if (required.has(key)) requiredKeys.push(key);
      else if (depth <= 0) continue;
      model[key] = this.node(sub, depth - 1);
    }
    for (const key of required) {
      if (props[key] !== undefined) continue;
      model[key] = anyJson(depth - 1);
      requiredKeys.push(key);
    }
    const base = fc.record(model, { requiredKeys, noNullPrototype: true }) as fc.Arbitrary<
      Record<string, unknown>
    >;
    const extra = node.additionalProperties;
    if (extra === false || depth <= 0) return base;
    const values =
      extra === undefined || extra === true ? anyJson(depth - 1) : this.node(extra, depth - 1);
    const extras = fc.dictionary(
      extraKey.filter((k) => props[k] === undefined && k !== "__proto__"),
      values,
      { maxKeys: 2, noNullPrototype: true },
    );
    return fc
      .tuple(
        base,
        fc.oneof(
          { arbitrary: fc.constant(undefined), weight: 2 },
          { arbitrary: extras, weight: 1 },
        ),
      )
      .map(([b, e]) => (e === undefined ? b : { ...e, ...b }));
  }
}

// ---------------------------------------------------------------------------------------
// Mutations

/** One mutation, as plain numbers so that fast-check can shrink it. */
export interface MutationSpec {
  readonly kind: number;
  readonly at: number;
  readonly pick: number;
  readonly payload: number;
}

export const mutationSpec: fc.Arbitrary<MutationSpec> = fc.record(
  { kind: fc.nat(), at: fc.nat(), pick: fc.nat(), payload: fc.nat() },
  { noNullPrototype: true },
);

/** Names used by the schema that mutations draw on. */
export interface MutationContext {
  /** Keys that tag union branches (`type`, `sessionUpdate`, ...). */
  readonly tagKeys: ReadonlySet<string>;
  /** Every property name the schema declares, plus a few odd ones. */
  readonly propertyNames: readonly string[];
}

/** Collects the tag keys and property names of a schema, for mutations. */
export function mutationContext(root: RootSchema): MutationContext {
  const tagKeys = new Set<string>();
  const names = new Set<string>();
  const walk = (node: SchemaNode | undefined): void => {
    if (node === undefined || typeof node === "boolean") return;
    for (const [key, sub] of Object.entries(node.properties ?? {})) {
      names.add(key);
      if (
        typeof sub !== "boolean" &&
        sub.const !== undefined &&
        node.required?.includes(key) === true
      )
        tagKeys.add(key);
      walk(sub);
    }
    for (const list of [node.allOf, node.anyOf, node.oneOf])
      for (const sub of list ?? []) walk(sub);
    walk(node.items);
    walk(node.not);
    walk(node.additionalProperties);
  };
  for (const def of Object.values(root.$defs)) walk(def);
  // `__proto__` as an own key, as `JSON.parse` makes it.
  return { tagKeys, propertyNames: [...[...names].sort(), ...ODD_KEYS, "__proto__"] };
}

/** Replacement values: every JSON type, numbers at and past format bounds, odd strings. */
const REPLACEMENTS: readonly (() => unknown)[] = [
  () => null,
  () => 0,
  () => -1,
  () => 1.5,
  () => -0.5,
  () => 65536,
  () => 2 ** 31,
  () => -(2 ** 31) - 1,
  () => 2 ** 32,
  () => 2 ** 53,
  () => 2 ** 64,
  () => 2 ** 65,
  () => -(2 ** 64),
  () => 1e300,
  () => "",
  () => "x",
  () => "\uD83D",
  () => "😀",
  () => true,
  () => false,
  () => [],
  () => [null],
  () => ({}),
  () => ({ type: "text", text: "t" }),
];

const TAG_VALUES: readonly unknown[] = [
  "__unknown_variant__",
  "",
  "Text",
  "_custom",
  42,
  null,
  true,
  {},
  ["text"],
];

const NUMBER_TWEAKS: readonly ((x: number) => number)[] = [
  (x) => x + 1,
  (x) => x - 1,
  (x) => -x - 1,
  (x) => x + 0.5,
  (x) => x * 2 ** 32,
  (x) => x + 2 ** 31,
  (x) => 2 ** 31 - 1 - x,
  (x) => -x,
];

const STRING_VALUES: readonly string[] = [
  "",
  "\uD800",
  "\uDC00",
  "\uDC00\uD800",
  "😀",
  "a",
  "\uD83D\uDE00\uD83D",
  "é",
];

interface Location {
  readonly value: unknown;
  readonly set: (value: unknown) => void;
}

function locations(root: { value: unknown }): Location[] {
  const out: Location[] = [];
  const visit = (value: unknown, set: (v: unknown) => void): void => {
    out.push({ value, set });
    if (Array.isArray(value)) {
      value.forEach((item, i) => {
        visit(item, (v) => {
          value[i] = v;
        });
      });
    } else if (isPlainObject(value)) {
      for (const key of Object.keys(value)) {
        visit(value[key], (v) => {
          value[key] = v;
        });
      }
    }
  };
  visit(root.value, (v) => {
    root.value = v;
  });
  return out;
}

function pickFrom<T>(list: readonly T[], n: number): T | undefined {
  return list.length === 0 ? undefined : list[n % list.length];
}

/** `pickFrom` on a list known not to be empty. */
function pick<T>(list: readonly T[], n: number): T {
  const item = pickFrom(list, n);
  if (item === undefined) throw new Error("pick from an empty list");
  return item;
}

type MutationKind = (loc: Location[], m: MutationSpec, ctx: MutationContext) => void;

/** The mutation kinds; `MutationSpec.kind` selects one modulo their count. */
const MUTATIONS: readonly (readonly [string, MutationKind])[] = [
  [
    "delete a property",
    (locs, m) => {
      const target = pickFrom(
        locs.filter((l) => isPlainObject(l.value) && Object.keys(l.value).length > 0),
        m.at,
      );
      if (target === undefined) return;
      const obj = target.value as Record<string, unknown>;
      Reflect.deleteProperty(obj, pick(Object.keys(obj), m.pick));
    },
  ],
  [
    "replace a value",
    (locs, m) => {
      pickFrom(locs, m.at)?.set(pick(REPLACEMENTS, m.payload)());
    },
  ],
  [
    "change a tag",
    (locs, m, ctx) => {
      const tagged = locs.filter(
        (l) => isPlainObject(l.value) && Object.keys(l.value).some((k) => ctx.tagKeys.has(k)),
      );
      const target = pickFrom(tagged, m.at);
      if (target === undefined) return;
      const obj = target.value as Record<string, unknown>;
      const key = pick(
        Object.keys(obj).filter((k) => ctx.tagKeys.has(k)),
        m.pick,
      );
      obj[key] = structuredClone(pickFrom(TAG_VALUES, m.payload));
    },
  ],
  [
    "add a property",
    (locs, m, ctx) => {
      const target = pickFrom(
        locs.filter((l) => isPlainObject(l.value)),
        m.at,
      );
      if (target === undefined) return;
      Object.defineProperty(target.value, pick(ctx.propertyNames, m.pick), {
        value: pick(REPLACEMENTS, m.payload)(),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    },
  ],
  [
    "set a property to null",
    (locs, m) => {
      const target = pickFrom(
        locs.filter((l) => isPlainObject(l.value) && Object.keys(l.value).length > 0),
        m.at,
      );
      if (target === undefined) return;
      const obj = target.value as Record<string, unknown>;
      obj[pick(Object.keys(obj), m.pick)] = null;
    },
  ],
  [
    "wrap in an array",
    (locs, m) => {
      const target = pickFrom(locs, m.at);
      target?.set([target.value]);
    },
  ],
  [
    "tweak a number",
    (locs, m) => {
      const target = pickFrom(
        locs.filter((l) => typeof l.value === "number"),
        m.at,
      );
      target?.set(pick(NUMBER_TWEAKS, m.payload)(target.value as number));
    },
  ],
  [
    "replace a string",
    (locs, m) => {
      const target = pickFrom(
        locs.filter((l) => typeof l.value === "string"),
        m.at,
      );
      target?.set(pickFrom(STRING_VALUES, m.payload));
    },
  ],
  [
    "push onto an array",
    (locs, m) => {
      const target = pickFrom(
        locs.filter((l) => Array.isArray(l.value)),
        m.at,
      );
      if (target === undefined) return;
      const arr = target.value as unknown[];
      const copy = m.pick % 2 === 1 ? pickFrom(arr, m.payload) : undefined;
      arr.push(copy !== undefined ? structuredClone(copy) : pick(REPLACEMENTS, m.payload)());
    },
  ],
  [
    "remove an array item",
    (locs, m) => {
      const target = pickFrom(
        locs.filter((l) => Array.isArray(l.value) && l.value.length > 0),
        m.at,
      );
      if (target === undefined) return;
      const arr = target.value as unknown[];
      arr.splice(m.pick % arr.length, 1);
    },
  ],
  [
    "transplant a value",
    (locs, m) => {
      const target = pickFrom(locs, m.at);
      const source = pickFrom(locs, m.pick);
      if (target === undefined || source === undefined) return;
      target.set(structuredClone(source.value));
    },
  ],
];

/** The name of the mutation kind a spec selects. */
export function mutationName(m: MutationSpec): string {
  return pick(MUTATIONS, m.kind)[0];
}

/** Applies one mutation to a copy of `value` (the input is not modified). */
export function applyMutation(value: unknown, m: MutationSpec, ctx: MutationContext): unknown {
  const root = { value: structuredClone(value) };
  pick(MUTATIONS, m.kind)[1](locations(root), m, ctx);
  return root.value;
}

// ---------------------------------------------------------------------------------------
// Issue paths

/**
 * Checks that `path` is a JSON Pointer (RFC 6901) into `root`: every segment must exist,
 * except that the last one may name a missing key of an object when the issue says the
 * key is required. Returns a description of the problem, or undefined when it is fine.
 */
export function checkIssuePath(root: unknown, path: string, message: string): string | undefined {
  if (path === "") return undefined;
  if (!path.startsWith("/")) return `"${path}" does not start with "/"`;
  if (/~(?![01])/.test(path)) return `"${path}" has an invalid "~" escape`;
  const segments = path
    .slice(1)
    .split("/")
    .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
  let current = root;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] ?? "";
    const last = i === segments.length - 1;
    if (Array.isArray(current)) {
      if (!/^(0|[1-9][0-9]*)$/.test(segment) || Number(segment) >= current.length) {
        return `"${path}": no array item "${segment}"`;
      }
      current = current[Number(segment)];
    } else if (isPlainObject(current)) {
      if (!Object.hasOwn(current, segment)) {
        if (last && message === "is required") return undefined;
        return `"${path}": no property "${segment}"`;
      }
      current = current[segment];
    } else {
      return `"${path}": segment "${segment}" goes into a ${current === null ? "null" : typeof current}`;
    }
  }
  return undefined;
}
