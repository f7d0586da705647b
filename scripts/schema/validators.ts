/**
 * Compiles the JSON Schema subset used by the ACP schema into plain validator functions.
 *
 * Every generated function has the shape `(v, p) => boolean` (see src/base/validation.ts):
 * with `p === undefined` it is a pure yes/no check, with a JSON Pointer it also records
 * issues. Tagged unions are compiled to a `switch` on the tag instead of trying each
 * member in turn, which is what makes validation cheap enough to leave on.
 *
 * The semantics follow JSON Schema 2020-12 exactly for the keywords used (a property test
 * compares the result with ajv on generated and mutated instances). Two decisions are
 * ours and are mirrored in that test's ajv set-up: integer `format`s (`int32`, `uint16`,
 * `uint32`, `int64`, `uint64`) assert their range, while `double`, `uri`, `regex` and `date-time` are
 * annotations only, as is `contentEncoding`.
 */
import { branchTag, refName, type SchemaNode, type SchemaObject } from "./load.ts";

type JsonType = "null" | "boolean" | "number" | "string" | "array" | "object";
const ALL_TYPES: readonly JsonType[] = ["null", "boolean", "number", "string", "array", "object"];

/**
 * How a compiled node is used by its parent. `inv(x, q)` is a JavaScript boolean
 * expression testing the value expression `x`; `q` is the expression of its path. When
 * `msg` is set the check records nothing itself and the caller records `msg` at `q`.
 */
interface Check {
  readonly always?: true;
  readonly inv: (x: string, q: string) => string;
  readonly msg?: string;
  readonly types: ReadonlySet<JsonType>;
}

const TRUE_CHECK: Check = { always: true, inv: () => "true", types: new Set(ALL_TYPES) };

const INT_FORMATS: Record<string, [number, number]> = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  uint16: [0, 65535],
  uint32: [0, 2 ** 32 - 1],
  int64: [-(2 ** 63), 2 ** 63 - 1],
  uint64: [0, 2 ** 64 - 1],
};
const ANNOTATION_FORMATS = new Set(["double", "uri", "regex", "date-time"]);

/** Unions whose unknown tags pass through (outside strict mode) instead of failing. */
export const OPEN_UNIONS: Readonly<Record<string, string>> = {
  SessionUpdate: "sessionUpdate",
  ContentBlock: "type",
  ToolCallContent: "type",
};

function typeExpr(t: string, x: string): string {
  switch (t) {
    case "null":
      return `${x} === null`;
    case "boolean":
      return `typeof ${x} === "boolean"`;
    case "number":
      return `typeof ${x} === "number"`;
    case "integer":
      return `Number.isInteger(${x})`;
    case "string":
      return `typeof ${x} === "string"`;
    case "array":
      return `Array.isArray(${x})`;
    case "object":
      return `(typeof ${x} === "object" && ${x} !== null && !Array.isArray(${x}))`;
    default:
      throw new Error(`Unknown JSON type ${t}`);
  }
}

function jsonTypeOf(t: string): JsonType {
  return t === "integer" ? "number" : (t as JsonType);
}

function describeTypes(types: readonly string[]): string {
  const names = types.map((t) => (t === "object" ? "an object" : t === "array" ? "an array" : t));
  return `must be ${names.join(" or ")}`;
}

function quote(s: string): string {
  return JSON.stringify(s);
}

/** Escapes a static object key for a JSON Pointer at generation time. */
function pointerKey(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

function subPath(p: string, suffix: string): string {
  return `${p} === undefined ? undefined : ${p} + ${quote("/" + pointerKey(suffix))}`;
}

/** Generates the validator module source. */
export class ValidatorCompiler {
  private readonly functions: string[] = [];
  private readonly defTypes = new Map<string, ReadonlySet<JsonType>>();
  private counter = 0;
  private readonly compiledDefs = new Set<string>();

  constructor(private readonly defs: Record<string, SchemaObject>) {}

  /** The name of the generated function validating definition `name`. */
  static defFunction(name: string): string {
    return `v_${name}`;
  }

  /** Compiles a definition (once) and returns its function name. */
  /** Definitions compiled to a function that accepts every value. */
  private readonly alwaysDefs = new Set<string>();

  compileDef(name: string): string {
    const fn = ValidatorCompiler.defFunction(name);
    if (this.compiledDefs.has(name)) return fn;
    this.compiledDefs.add(name);
    const def = this.defs[name];
    if (def === undefined) throw new Error(`Unknown definition ${name}`);
    const check = this.compile(def, name);
    if (check.always === true) {
      this.alwaysDefs.add(name);
      this.functions.push(
        `function ${fn}(_v: any, _p: string | undefined): boolean {\n  return true;\n}`,
      );
    } else if (check.msg !== undefined) {
      this.functions.push(
        `function ${fn}(v: any, p: string | undefined): boolean {\n  return ${check.inv("v", "p")} || (p !== undefined && fail(p, ${quote(check.msg)}));\n}`,
      );
    } else {
      this.functions.push(
        `function ${fn}(v: any, p: string | undefined): boolean {\n  return ${check.inv("v", "p")};\n}`,
      );
    }
    return fn;
  }

  /** All generated functions, in generation order. */
  source(): string {
    return this.functions.join("\n\n");
  }

  private fresh(prefix: string): string {
    return `${prefix}${this.counter++}`;
  }

  private typesOfDef(name: string): ReadonlySet<JsonType> {
    const known = this.defTypes.get(name);
    if (known !== undefined) return known;
    // Guard against recursion while computing: assume anything until known.
    this.defTypes.set(name, new Set(ALL_TYPES));
    const def = this.defs[name];
    if (def === undefined) throw new Error(`Unknown definition ${name}`);
    const types = this.typesOf(def);
    this.defTypes.set(name, types);
    return types;
  }

  /** Which JSON types a node can possibly accept (an over-approximation). */
  private typesOf(node: SchemaNode): ReadonlySet<JsonType> {
    if (typeof node === "boolean") return new Set(node ? ALL_TYPES : []);
    let types = new Set<JsonType>(ALL_TYPES);
    const narrow = (other: ReadonlySet<JsonType>): void => {
      types = new Set([...types].filter((t) => other.has(t)));
    };
    if (node.type !== undefined) {
      const list = Array.isArray(node.type) ? node.type : [node.type];
      narrow(new Set(list.map(jsonTypeOf)));
    }
    if (node.const !== undefined) narrow(new Set([jsonTypeOf(constType(node.const))]));
    if (node.$ref !== undefined) narrow(this.typesOfDef(refName(node.$ref)));
    for (const sub of node.allOf ?? []) narrow(this.typesOf(sub));
    for (const key of ["anyOf", "oneOf"] as const) {
      const branches = node[key];
      if (branches !== undefined) {
        const union = new Set<JsonType>();
        for (const b of branches) for (const t of this.typesOf(b)) union.add(t);
        narrow(union);
      }
    }
    return types;
  }

  /** Compiles one schema node. `label` names the node in generated comments. */
  private compile(node: SchemaNode, label: string): Check {
    if (node === true) return TRUE_CHECK;
    if (node === false) {
      return { inv: () => "false", msg: "is not allowed", types: new Set() };
    }
    const types = this.typesOf(node);
    const atoms = this.atoms(node);
    const hasObjectPart =
      node.properties !== undefined ||
      node.required !== undefined ||
      (node.additionalProperties !== undefined && node.additionalProperties !== true);
    const hasArrayPart = node.items !== undefined && node.items !== true;
    const refCheck = node.$ref !== undefined ? this.refCheck(node.$ref) : undefined;
    const allOf = (node.allOf ?? []).map((s) => this.compile(s, label)).filter((c) => !c.always);
    const unionKey =
      node.oneOf !== undefined ? "oneOf" : node.anyOf !== undefined ? "anyOf" : undefined;
    if (node.oneOf !== undefined && node.anyOf !== undefined) {
      throw new Error(`${label}: both oneOf and anyOf on one node are not supported`);
    }
    const union = unionKey !== undefined ? this.compileUnion(node, unionKey, label) : undefined;
    const notCheck = node.not !== undefined ? this.compile(node.not, label) : undefined;

    const parts: Check[] = [...(refCheck ? [refCheck] : []), ...allOf, ...(union ? [union] : [])];
    // A node that is a single atom or a single sub-check needs no function of its own.
    if (!hasObjectPart && !hasArrayPart && notCheck === undefined) {
      if (atoms.length === 0 && parts.length === 0) return { ...TRUE_CHECK, types };
      if (atoms.length === 1 && parts.length === 0) return { ...atoms[0]!, types };
      if (atoms.length === 0 && parts.length === 1) return { ...parts[0]!, types };
    }

    const fn = this.fresh("f");
    const lines: string[] = [`function ${fn}(v: any, p: string | undefined): boolean {`];
    lines.push(`  // ${label}`);
    const typeAtom = atoms.find((a) => a.isType);
    const objectOnly = types.size === 1 && types.has("object") && typeAtom !== undefined;
    const arrayOnly = types.size === 1 && types.has("array") && typeAtom !== undefined;
    if (typeAtom !== undefined) {
      // A value of the wrong type fails whatever else the node says.
      lines.push(
        `  if (!(${typeAtom.inv("v", "p")})) return p !== undefined && fail(p, ${quote(typeAtom.msg)});`,
      );
    }
    lines.push("  let ok = true;");
    for (const atom of atoms) {
      if (atom === typeAtom) continue;
      lines.push(
        `  if (!(${atom.inv("v", "p")})) { if (p === undefined) return false; ok = fail(p, ${quote(atom.msg)}); }`,
      );
    }
    if (hasObjectPart) {
      const body = this.objectBody(node, label);
      if (objectOnly) lines.push(...body.map((l) => "  " + l));
      else {
        lines.push(`  if (typeof v === "object" && v !== null && !Array.isArray(v)) {`);
        lines.push(...body.map((l) => "    " + l));
        lines.push("  }");
      }
    }
    if (hasArrayPart) {
      const item = this.compile(node.items!, `${label}[]`);
      const skipInvalid = node["x-deserialize-skip-invalid-items"] === true;
      const body = [
        `for (let i = 0; i < v.length; i++) {`,
        `  const e = v[i];`,
        `  ${failWith(item, "e", `p === undefined ? undefined : p + "/" + i`, `p + "/" + i`, skipInvalid ? 'repair(p, i, "drop");' : "")}`,
        `}`,
      ];
      if (arrayOnly) lines.push(...body.map((l) => "  " + l));
      else {
        lines.push(`  if (Array.isArray(v)) {`);
        lines.push(...body.map((l) => "    " + l));
        lines.push("  }");
      }
    }
    for (const part of parts) {
      lines.push(`  ${failWith(part, "v", "p", "p")}`);
    }
    if (notCheck !== undefined) {
      lines.push(
        `  if (${notCheck.inv("v", "undefined")}) { if (p === undefined) return false; ok = fail(p, "matches a shape it must not match"); }`,
      );
    }
    lines.push("  return ok;", "}");
    this.functions.push(lines.join("\n"));
    return { inv: (x, q) => `${fn}(${x}, ${q})`, types };
  }

  private refCheck(ref: string): Check {
    const name = refName(ref);
    const fn = this.compileDef(name);
    // A definition that accepts everything (v2's `ErrorData`) is no check at all.
    if (this.alwaysDefs.has(name)) return TRUE_CHECK;
    return { inv: (x, q) => `${fn}(${x}, ${q})`, types: this.typesOfDef(name) };
  }

  /** Single-expression checks: type, const, numeric bounds, string length, integer formats. */
  private atoms(node: SchemaObject): (Check & { msg: string; isType?: boolean })[] {
    const out: (Check & { msg: string; isType?: boolean })[] = [];
    const all = new Set<JsonType>(ALL_TYPES);
    if (node.type !== undefined) {
      const list = Array.isArray(node.type) ? node.type : [node.type];
      // "integer" implies "number"-typed checks; order null last for readable messages.
      const expr = (x: string): string =>
        list.length === 1
          ? typeExpr(list[0]!, x)
          : `(${list.map((t) => typeExpr(t, x)).join(" || ")})`;
      out.push({ inv: expr, msg: describeTypes(list), types: all, isType: true });
    }
    if (node.const !== undefined) {
      const c = node.const;
      if (c === null || typeof c === "object")
        throw new Error("Only primitive const values are supported");
      out.push({
        inv: (x) => `${x} === ${JSON.stringify(c)}`,
        msg: `must be ${JSON.stringify(c)}`,
        types: all,
      });
    }
    if (node.minimum !== undefined) {
      const m = node.minimum;
      out.push({
        inv: (x) => `(typeof ${x} !== "number" || ${x} >= ${m})`,
        msg: `must be >= ${m}`,
        types: all,
      });
    }
    if (node.maximum !== undefined) {
      const m = node.maximum;
      out.push({
        inv: (x) => `(typeof ${x} !== "number" || ${x} <= ${m})`,
        msg: `must be <= ${m}`,
        types: all,
      });
    }
    if (node.minLength !== undefined) {
      const m = node.minLength;
      out.push({
        inv: (x) => `(typeof ${x} !== "string" || hasMinCodePoints(${x}, ${m}))`,
        msg: `must have at least ${m} character${m === 1 ? "" : "s"}`,
        types: all,
      });
    }
    if (node.minItems !== undefined) {
      const m = node.minItems;
      out.push({
        inv: (x) => `(!Array.isArray(${x}) || ${x}.length >= ${m})`,
        msg: `must have at least ${m} item${m === 1 ? "" : "s"}`,
        types: all,
      });
    }
    // `contentEncoding` (base64 in v2) is an annotation in JSON Schema 2020-12, as in ajv:
    // the value is checked as a string, its encoding is the reader's business.
    if (node.format !== undefined) {
      const range = INT_FORMATS[node.format];
      if (range !== undefined) {
        const [lo, hi] = range;
        out.push({
          inv: (x) =>
            `(typeof ${x} !== "number" || (Number.isInteger(${x}) && ${x} >= ${lo} && ${x} <= ${hi}))`,
          msg: `must be ${/^[aeiou]/.test(node.format) ? "an" : "a"} ${node.format} integer`,
          types: all,
        });
      } else if (!ANNOTATION_FORMATS.has(node.format)) {
        throw new Error(`Unsupported format ${node.format}`);
      }
    }
    return out;
  }

  /** Statements checking `properties`, `required` and `additionalProperties` of object `v`. */
  private objectBody(node: SchemaObject, label: string): string[] {
    const lines: string[] = [];
    const props = node.properties ?? {};
    const required = new Set(node.required ?? []);
    let i = 0;
    for (const [name, sub] of Object.entries(props)) {
      const check = this.compile(sub, `${label}.${name}`);
      const x = `x${i++}`;
      const access = `v[${quote(name)}]`;
      const q = subPath("p", name);
      const qFail = `p + ${quote("/" + pointerKey(name))}`;
      const fix = propertyRepair(sub, name, x);
      if (required.has(name)) {
        lines.push(`const ${x} = ${access};`);
        lines.push(
          `if (${x} === undefined) { if (p === undefined) return false; ok = fail(${qFail}, "is required"); }`,
        );
        if (!check.always) lines.push(`else ${failWith(check, x, q, qFail, fix)}`);
      } else if (!check.always) {
        lines.push(`const ${x} = ${access};`);
        lines.push(`if (${x} !== undefined) ${failWith(check, x, q, qFail, fix)}`);
      }
      required.delete(name);
    }
    for (const name of required) {
      lines.push(
        `if (v[${quote(name)}] === undefined) { if (p === undefined) return false; ok = fail(p + ${quote("/" + pointerKey(name))}, "is required"); }`,
      );
    }
    const extra = node.additionalProperties;
    if (extra !== undefined && extra !== true) {
      const check = this.compile(extra, `${label}{}`);
      const declared = Object.keys(props);
      lines.push(`for (const k in v) {`);
      if (declared.length > 0) {
        lines.push(`  if (${declared.map((d) => `k === ${quote(d)}`).join(" || ")}) continue;`);
      }
      lines.push(
        `  ${failWith(check, "v[k]", `p === undefined ? undefined : p + "/" + escapePointer(k)`, `p + "/" + escapePointer(k)`)}`,
      );
      lines.push(`}`);
    }
    return lines;
  }

  /** anyOf / oneOf: a tag switch where branches are tagged, in-order tries otherwise. */
  private compileUnion(node: SchemaObject, key: "anyOf" | "oneOf", label: string): Check {
    const branches = node[key]!;
    const tags = branches.map((b) => branchTag(b));
    const tagKeys = new Set(tags.filter((t) => t !== undefined).map((t) => t.key));
    const types = new Set<JsonType>();
    for (const b of branches) for (const t of this.typesOf(b)) types.add(t);

    // A union of string constants is a set-membership test.
    const consts = branches.map((b) =>
      typeof b !== "boolean" &&
      typeof b.const === "string" &&
      Object.keys(b).every((k) => ["const", "type", "title", "description"].includes(k))
        ? b.const
        : undefined,
    );
    if (consts.every((c) => c !== undefined) && new Set(consts).size === consts.length) {
      const list = consts;
      return {
        inv: (x) => `(${list.map((c) => `${x} === ${quote(c)}`).join(" || ")})`,
        msg: `must be one of ${list.map((c) => quote(c)).join(", ")}`,
        types: new Set(["string"]),
      };
    }

    const tagged = tags.filter((t) => t !== undefined);
    const distinct = new Set(tagged.map((t) => t.value)).size === tagged.length;
    const open = OPEN_UNIONS[label] !== undefined && key === "oneOf";
    if (tagKeys.size === 1 && distinct && (key === "anyOf" || tagged.length === branches.length)) {
      return this.compileTaggedUnion(node, key, label, [...tagKeys][0]!, open, types);
    }
    if (open) throw new Error(`${label}: open union is not a tagged union`);
    return this.compileGenericUnion(branches, key, label, types);
  }

  private compileTaggedUnion(
    node: SchemaObject,
    key: "anyOf" | "oneOf",
    label: string,
    tagKey: string,
    open: boolean,
    types: ReadonlySet<JsonType>,
  ): Check {
    const branches = node[key]!;
    const fn = this.fresh("u");
    const taggedCases: { value: string; check: Check }[] = [];
    const fallbacks: Check[] = [];
    branches.forEach((branch, i) => {
      const tag = branchTag(branch);
      if (tag === undefined) {
        fallbacks.push(this.compile(branch, `${label}|${i}`));
        return;
      }
      taggedCases.push({
        value: tag.value,
        check: this.compile(stripTag(branch as SchemaObject, tagKey), `${label}=${tag.value}`),
      });
    });
    const t = quote(tagKey);
    const lines = [
      `function ${fn}(v: any, p: string | undefined): boolean {`,
      `  // ${label} (tag ${tagKey})`,
    ];
    if (fallbacks.length > 0) lines.push(`  const u0 = validatorState.unknownVariants;`);
    lines.push(`  if (typeof v === "object" && v !== null && !Array.isArray(v)) {`);
    lines.push(`    switch (v[${t}]) {`);
    for (const c of taggedCases) {
      lines.push(`      case ${quote(c.value)}:`);
      lines.push(
        c.check.always
          ? `        return true;`
          : `        if (${c.check.inv("v", "undefined")}) return true;`,
      );
      lines.push(`        break;`);
    }
    if (open) {
      lines.push(`      default:`);
      lines.push(
        `        if (typeof v[${t}] === "string" && !validatorState.strict) { validatorState.unknownVariants++; return true; }`,
      );
    }
    lines.push(`    }`, `  }`);
    if (fallbacks.length > 0) lines.push(`  validatorState.unknownVariants = u0;`);
    for (const f of fallbacks) {
      lines.push(f.always ? `  return true;` : `  if (${f.inv("v", "undefined")}) return true;`);
      lines.push(`  validatorState.unknownVariants = u0;`);
    }
    lines.push(`  if (p === undefined) return false;`);
    // Recording pass: explain the most plausible branch.
    lines.push(
      `  if (!(typeof v === "object" && v !== null && !Array.isArray(v))) return fail(p, "must be an object");`,
    );
    lines.push(`  const tag = v[${t}];`);
    lines.push(`  switch (tag) {`);
    for (const c of taggedCases) {
      lines.push(`    case ${quote(c.value)}:`);
      lines.push(
        `      return ${c.check.inv("v", "p")}${c.check.msg !== undefined ? ` || fail(p, ${quote(c.check.msg)})` : ""};`,
      );
    }
    lines.push(`  }`);
    const first = fallbacks[0];
    if (first !== undefined) {
      lines.push(
        `  return ${first.inv("v", "p")}${first.msg !== undefined ? ` || fail(p, ${quote(first.msg)})` : ""};`,
      );
    } else {
      const expected = taggedCases.map((c) => c.value).join(", ");
      lines.push(
        `  if (tag === undefined) return fail(p + ${quote("/" + pointerKey(tagKey))}, "is required");`,
      );
      lines.push(
        `  if (typeof tag !== "string") return fail(p + ${quote("/" + pointerKey(tagKey))}, "must be string");`,
      );
      lines.push(
        `  return fail(p + ${quote("/" + pointerKey(tagKey))}, ${quote(`must be one of: ${expected}`)});`,
      );
    }
    lines.push(`}`);
    this.functions.push(lines.join("\n"));
    return { inv: (x, q) => `${fn}(${x}, ${q})`, types };
  }

  private compileGenericUnion(
    branches: SchemaNode[],
    key: "anyOf" | "oneOf",
    label: string,
    types: ReadonlySet<JsonType>,
  ): Check {
    const checks = branches.map((b, i) => this.compile(b, `${label}|${i}`));
    if (key === "anyOf" && checks.some((c) => c.always)) return { ...TRUE_CHECK, types };
    const fn = this.fresh("u");
    const lines = [
      `function ${fn}(v: any, p: string | undefined): boolean {`,
      `  // ${label} (${key})`,
    ];
    // Unknown variants counted inside a branch that fails must not count.
    lines.push(`  const u0 = validatorState.unknownVariants;`);
    if (key === "anyOf") {
      for (const c of checks) {
        lines.push(`  if (${c.inv("v", "undefined")}) return true;`);
        lines.push(`  validatorState.unknownVariants = u0;`);
      }
    } else {
      lines.push(`  let matches = 0;`, `  let gained = 0;`);
      for (const c of checks) {
        lines.push(
          `  if (${c.inv("v", "undefined")}) { matches++; gained += validatorState.unknownVariants - u0; }`,
          `  validatorState.unknownVariants = u0;`,
        );
      }
      lines.push(`  validatorState.unknownVariants = u0 + gained;`);
      lines.push(`  if (matches === 1) return true;`);
    }
    lines.push(`  if (p === undefined) return false;`);
    if (key === "oneOf") {
      lines.push(`  if (matches > 1) return fail(p, "matches more than one allowed shape");`);
    }
    // Recording pass: report the first branch that accepts the value's JSON type.
    lines.push(`  const t = jsonType(v);`);
    checks.forEach((c) => {
      const accepted = [...c.types];
      if (accepted.length === 0) return;
      const cond =
        accepted.length === ALL_TYPES.length
          ? "true"
          : accepted.map((a) => `t === ${quote(a)}`).join(" || ");
      lines.push(
        `  if (${cond}) return ${c.inv("v", "p")}${c.msg !== undefined ? ` || fail(p, ${quote(c.msg)})` : ""};`,
      );
    });
    const names = [...types].map((t) =>
      t === "object" ? "an object" : t === "array" ? "an array" : t,
    );
    lines.push(
      `  return fail(p, ${quote(names.length > 0 ? `must be ${names.join(" or ")}` : "does not match any allowed shape")});`,
    );
    lines.push(`}`);
    this.functions.push(lines.join("\n"));
    return { inv: (x, q) => `${fn}(${x}, ${q})`, types };
  }
}

/**
 * The statement that runs `check` on `x` and records a failure at `qFail`; `onFail` is a
 * statement run first in the recording pass (used to record repairs).
 */
function failWith(check: Check, x: string, q: string, qFail: string, onFail = ""): string {
  if (check.always) return "";
  const before = onFail === "" ? "" : ` ${onFail}`;
  if (check.msg !== undefined) {
    return `if (!(${check.inv(x, q)})) { if (p === undefined) return false;${before} ok = fail(${qFail}, ${quote(check.msg)}); }`;
  }
  return `if (!${check.inv(x, q)}) { if (p === undefined) return false;${before} ok = false; }`;
}

/** The repair statement for an invalid property, from the schema's leniency annotations. */
function propertyRepair(sub: SchemaNode, name: string, x: string): string {
  if (typeof sub === "boolean") return "";
  if (sub["x-deserialize-default-on-error"] === true) return `repair(p, ${quote(name)}, "delete");`;
  if (sub["x-deserialize-default-on-null"] === true) {
    const types = Array.isArray(sub.type) ? sub.type : [sub.type];
    const action = types.includes("array")
      ? "empty-array"
      : types.includes("object")
        ? "empty-object"
        : undefined;
    if (action === undefined)
      throw new Error(`default-on-null on ${name} needs an array or object type`);
    return `if (${x} === null) repair(p, ${quote(name)}, "${action}");`;
  }
  return "";
}

/** A tagged branch without its tag constraint (the switch already checked it). */
function stripTag(branch: SchemaObject, tagKey: string): SchemaObject {
  const { properties, required, type, ...rest } = branch;
  const props = Object.fromEntries(Object.entries(properties ?? {}).filter(([k]) => k !== tagKey));
  const req = (required ?? []).filter((r) => r !== tagKey);
  const out: SchemaObject = { ...rest };
  if (Object.keys(props).length > 0) out.properties = props;
  if (req.length > 0) out.required = req;
  // The switch only runs on objects, so `type: "object"` is implied; keep other types.
  if (type !== undefined && type !== "object") out.type = type;
  return out;
}

function constType(c: unknown): string {
  if (c === null) return "null";
  if (typeof c === "number") return Number.isInteger(c) ? "integer" : "number";
  return typeof c;
}
