/**
 * Loads the official ACP JSON Schema files (stable and unstable, the latter merged with
 * the classic extract, see extract-classic.ts) and works out which definitions,
 * properties and union variants exist only in the unstable one.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** A JSON Schema node as it appears in the ACP schema (boolean schemas included). */
export type SchemaNode = boolean | SchemaObject;

/** The keywords of a JSON Schema object node that the generator understands. */
export interface SchemaObject {
  $ref?: string;
  type?: string | string[];
  const?: unknown;
  properties?: Record<string, SchemaNode>;
  required?: string[];
  additionalProperties?: SchemaNode;
  unevaluatedProperties?: SchemaNode;
  items?: SchemaNode;
  allOf?: SchemaNode[];
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  not?: SchemaNode;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  minItems?: number;
  format?: string;
  contentEncoding?: string;
  title?: string;
  description?: string;
  default?: unknown;
  discriminator?: { propertyName: string };
  "x-method"?: string;
  "x-side"?: string;
  /** A method dropped from the protocol that classic releases still send (our marker). */
  "x-legacy-method"?: string;
  "x-docs-ignore"?: boolean;
  "x-deserialize-default-on-error"?: boolean;
  "x-deserialize-skip-invalid-items"?: boolean;
  "x-deserialize-default-on-null"?: boolean;
}

/** The protocol versions whose schema files the pinned SDK ships. */
export type SchemaVersion = "v1" | "v2";

/** Both schema files, parsed, with the pinned SDK version they came from. */
export interface LoadedSchemas {
  readonly sdkVersion: string;
  /** Which protocol version's files these are. */
  readonly version: SchemaVersion;
  /** `schema.json` and `schema.unstable.json` with the sha256 of each, as read. */
  readonly files: readonly { readonly name: string; readonly sha256: string }[];
  readonly stable: Record<string, SchemaObject>;
  readonly unstable: Record<string, SchemaObject>;
  readonly stableRoot: SchemaObject;
  readonly unstableRoot: SchemaObject;
}

interface RawSchemaFile extends SchemaObject {
  $defs: Record<string, SchemaObject>;
}

/**
 * `classic.schema.json` (written by extract-classic.ts from the official schema files of
 * classic SDK releases): definitions the pinned schema no longer has, and properties the
 * classic releases added to pinned definitions.
 */
interface ClassicSchemaFile {
  $defs: Record<string, SchemaObject>;
  extend: Record<string, Record<string, SchemaNode>>;
}

/** The path of the committed classic schema extract. */
export const CLASSIC_SCHEMA_PATH = join(
  dirname(fileURLToPath(import.meta.url)),
  "classic.schema.json",
);

/**
 * The pinned unstable schema with the classic extract merged in: its definitions added,
 * its properties added to the definitions they extend. Everything merged exists only in
 * the unstable schema, so it is typed and documented as unstable.
 */
export function mergeClassic(unstable: RawSchemaFile): RawSchemaFile {
  const classic = JSON.parse(readFileSync(CLASSIC_SCHEMA_PATH, "utf8")) as ClassicSchemaFile;
  const defs: Record<string, SchemaObject> = { ...unstable.$defs };
  for (const [name, def] of Object.entries(classic.$defs)) {
    if (defs[name] !== undefined) throw new Error(`classic definition ${name} clashes`);
    defs[name] = def;
  }
  for (const [owner, props] of Object.entries(classic.extend)) {
    const def = defs[owner];
    if (def === undefined) throw new Error(`classic extension of unknown ${owner}`);
    for (const prop of Object.keys(props)) {
      if (def.properties?.[prop] !== undefined) throw new Error(`${owner}.${prop} clashes`);
    }
    defs[owner] = { ...def, properties: { ...def.properties, ...props } };
  }
  return { ...unstable, $defs: defs };
}

/** The pinned SDK's `schema.unstable.json` merged with the classic extract (for tests). */
export function loadMergedUnstableSchema(): RawSchemaFile {
  const require = createRequire(import.meta.url);
  const file = require.resolve("@agentclientprotocol/sdk/schema/v1/schema.unstable.json");
  return mergeClassic(JSON.parse(readFileSync(file, "utf8")) as RawSchemaFile);
}

/** The keywords that may hold a subschema and are not property-name maps. */
export const KNOWN_KEYWORDS = new Set([
  "$ref",
  "type",
  "const",
  "properties",
  "required",
  "additionalProperties",
  "unevaluatedProperties",
  "items",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "minimum",
  "maximum",
  "minLength",
  "minItems",
  "format",
  "contentEncoding",
  "title",
  "description",
  "default",
  "discriminator",
  "x-method",
  "x-side",
  "x-legacy-method",
  "x-docs-ignore",
  "x-deserialize-default-on-error",
  "x-deserialize-skip-invalid-items",
  "x-deserialize-default-on-null",
]);

/** The pinned SDK's v2 `schema.unstable.json`, as shipped (for tests). */
export function loadUnstableSchemaV2(): RawSchemaFile {
  const require = createRequire(import.meta.url);
  const file = require.resolve("@agentclientprotocol/sdk/schema/v2/schema.unstable.json");
  return JSON.parse(readFileSync(file, "utf8")) as RawSchemaFile;
}

/**
 * Reads the schema files of the pinned `@agentclientprotocol/sdk` dev dependency: v1's
 * with the classic extract merged into the unstable one, v2's as shipped.
 */
export function loadSchemas(version: SchemaVersion = "v1"): LoadedSchemas {
  const require = createRequire(import.meta.url);
  const schemaDir = dirname(
    require.resolve(`@agentclientprotocol/sdk/schema/${version}/schema.json`),
  );
  const pkgPath = join(schemaDir, "..", "..", "package.json");
  const pkg = JSON.parse(readFileSync(pkgPath, "utf8")) as { version: string };
  const files: { name: string; sha256: string }[] = [];
  const read = (file: string): RawSchemaFile => {
    const text = readFileSync(join(schemaDir, file), "utf8");
    files.push({ name: file, sha256: createHash("sha256").update(text).digest("hex") });
    return JSON.parse(text) as RawSchemaFile;
  };
  const stable = read("schema.json");
  const shipped = read("schema.unstable.json");
  const unstable = version === "v1" ? mergeClassic(shipped) : shipped;
  // Only definitions are compiled; the root message envelopes are not.
  for (const file of [stable, unstable]) {
    for (const [name, def] of Object.entries(file.$defs)) checkKeywords(def, `#/$defs/${name}`);
  }
  return {
    sdkVersion: pkg.version,
    version,
    files,
    stable: stable.$defs,
    unstable: unstable.$defs,
    stableRoot: stable,
    unstableRoot: unstable,
  };
}

/** Fails loudly when the schema uses a keyword the generator would silently ignore. */
function checkKeywords(node: SchemaNode, where = "#"): void {
  if (typeof node === "boolean") return;
  for (const [key, value] of Object.entries(node)) {
    if (!KNOWN_KEYWORDS.has(key)) {
      throw new Error(`Unsupported JSON Schema keyword "${key}" at ${where}`);
    }
    if (key === "properties") {
      for (const [name, sub] of Object.entries(value as Record<string, SchemaNode>)) {
        checkKeywords(sub, `${where}/properties/${name}`);
      }
    } else if (key === "allOf" || key === "anyOf" || key === "oneOf") {
      (value as SchemaNode[]).forEach((sub, i) => {
        checkKeywords(sub, `${where}/${key}/${i}`);
      });
    } else if (
      key === "items" ||
      key === "not" ||
      key === "additionalProperties" ||
      key === "unevaluatedProperties"
    ) {
      checkKeywords(value as SchemaNode, `${where}/${key}`);
    }
  }
}

/** The definition name a `$ref` points at. */
export function refName(ref: string): string {
  const prefix = "#/$defs/";
  if (!ref.startsWith(prefix)) throw new Error(`Unsupported $ref ${ref}`);
  return ref.slice(prefix.length);
}

/** Reads the tag of a tagged union branch: `{ properties: { K: { const: C } }, required: [K] }`. */
export function branchTag(node: SchemaNode): { key: string; value: string } | undefined {
  if (typeof node === "boolean" || node.properties === undefined) return undefined;
  for (const [key, prop] of Object.entries(node.properties)) {
    if (
      typeof prop !== "boolean" &&
      typeof prop.const === "string" &&
      node.required?.includes(key) === true
    ) {
      return { key, value: prop.const };
    }
  }
  return undefined;
}

/** What the unstable schema adds on top of the stable one. */
export interface UnstableParts {
  /** Definitions that exist only in the unstable schema. */
  readonly defs: Set<string>;
  /** `Def.prop` for properties that exist only in the unstable schema. */
  readonly properties: Set<string>;
  /** `Def=tag` for union variants that exist only in the unstable schema. */
  readonly variants: Set<string>;
}

/** Compares the two schema files definition by definition. */
export function diffUnstable(schemas: LoadedSchemas): UnstableParts {
  const defs = new Set<string>();
  const properties = new Set<string>();
  const variants = new Set<string>();
  for (const [name, def] of Object.entries(schemas.unstable)) {
    const stableDef = schemas.stable[name];
    if (stableDef === undefined) {
      defs.add(name);
      continue;
    }
    for (const prop of Object.keys(def.properties ?? {})) {
      if (stableDef.properties?.[prop] === undefined) properties.add(`${name}.${prop}`);
    }
    const stableTags = new Set(
      [...(stableDef.oneOf ?? []), ...(stableDef.anyOf ?? [])]
        .map((b) => branchTag(b)?.value)
        .filter((t): t is string => t !== undefined),
    );
    for (const branch of [...(def.oneOf ?? []), ...(def.anyOf ?? [])]) {
      const tag = branchTag(branch);
      if (tag !== undefined && !stableTags.has(tag.value)) variants.add(`${name}=${tag.value}`);
    }
  }
  return { defs, properties, variants };
}
