/**
 * Emits TypeScript types for every schema definition. No description text from the
 * schema is carried over: doc comments come from our own summaries (docs.ts) or a link to
 * the protocol's reference page.
 */
import {
  branchTag,
  refName,
  type SchemaNode,
  type SchemaObject,
  type UnstableParts,
} from "./load.ts";
import { OPEN_UNIONS } from "./validators.ts";
import { TYPE_DOCS } from "./docs.ts";

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function propName(name: string): string {
  return IDENT.test(name) ? name : JSON.stringify(name);
}

function indent(text: string, by = "  "): string {
  return text
    .split("\n")
    .map((l) => (l.length > 0 ? by + l : l))
    .join("\n");
}

/** A copy of `record` without `key`. */
function without<T>(record: Record<string, T> | undefined, key: string): Record<string, T> {
  return Object.fromEntries(Object.entries(record ?? {}).filter(([k]) => k !== key));
}

/** `T[]`, parenthesised when `T` is a union or intersection. */
function arrayOf(item: string): string {
  return /[|&\s]/.test(item) ? `(${item})[]` : `${item}[]`;
}

/** The protocol reference page anchor for a definition. */
export function referenceLink(name: string, unstable: boolean): string {
  const page = unstable ? "draft/schema" : "schema";
  return `https://agentclientprotocol.com/protocol/${page}#${name.toLowerCase()}`;
}

/** Generates the types module. */
export class TypeEmitter {
  constructor(
    private readonly defs: Record<string, SchemaObject>,
    private readonly unstable: UnstableParts,
  ) {}

  /** `export type X = ...` for every definition, with doc comments. */
  emitAll(): string {
    const out: string[] = [];
    for (const name of Object.keys(this.defs)) {
      out.push(this.emitDef(name));
    }
    for (const [name, tagKey] of Object.entries(OPEN_UNIONS)) {
      out.push(
        [
          "/**",
          ` * A {@link ${name}} whose \`${tagKey}\` this version of acp-kit does not know (sent by a`,
          " * newer peer). It is delivered as received; its tag is typed {@link UnknownTag} so that",
          " * a `switch` over the known tags stays exhaustive only once this case is handled too.",
          " */",
          `export type Unknown${name} = UnknownVariant<${JSON.stringify(tagKey)}>;`,
        ].join("\n"),
      );
    }
    return out.join("\n\n");
  }

  private emitDef(name: string): string {
    const def = this.defs[name]!;
    const isUnstable = this.unstable.defs.has(name);
    const doc = TYPE_DOCS[name] ?? `The \`${name}\` type of the Agent Client Protocol.`;
    const lines = ["/**", ...doc.split("\n").map((l) => ` * ${l}`.trimEnd())];
    if (isUnstable) {
      lines.push(
        " *",
        " * Unstable: defined only in the protocol's unstable schema; it may change or go away.",
      );
    }
    lines.push(" *", ` * @see {@link ${referenceLink(name, isUnstable)} | Protocol reference}`);
    if (isUnstable) lines.push(" * @experimental");
    lines.push(" */");
    let body = this.type(def, name);
    if (OPEN_UNIONS[name] !== undefined) body = `${body}\n  | Unknown${name}`;
    return `${lines.join("\n")}\nexport type ${name} = ${body};`;
  }

  /** The TypeScript type expression for a schema node. `owner` is the enclosing definition. */
  type(node: SchemaNode, owner: string): string {
    if (node === true) return "unknown";
    if (node === false) return "never";
    const parts: string[] = [];
    if (node.$ref !== undefined) parts.push(refName(node.$ref));
    for (const sub of node.allOf ?? []) parts.push(this.type(sub, owner));
    const union = node.oneOf ?? node.anyOf;
    if (union !== undefined) parts.push(this.unionType(union, owner));
    const own = this.ownType(node, owner);
    if (own !== undefined) parts.push(own);
    if (parts.length === 0) return "unknown";
    if (parts.length === 1) return parts[0]!;
    return parts.map((p) => (p.includes("|") ? `(${p})` : p)).join(" & ");
  }

  /** The part of a node's type that comes from `type`, `const`, `properties`, `items`. */
  private ownType(node: SchemaObject, owner: string): string | undefined {
    if (node.const !== undefined) return JSON.stringify(node.const);
    const hasProps = node.properties !== undefined && Object.keys(node.properties).length > 0;
    if (node.type === undefined) return hasProps ? this.objectType(node, owner) : undefined;
    const list = Array.isArray(node.type) ? node.type : [node.type];
    const mapped = list.map((t) => {
      switch (t) {
        case "null":
          return "null";
        case "boolean":
          return "boolean";
        case "integer":
        case "number":
          return "number";
        case "string":
          return "string";
        case "array":
          return arrayOf(node.items === undefined ? "unknown" : this.type(node.items, owner));
        case "object":
          return this.objectType(node, owner);
        default:
          throw new Error(`Unknown type ${t}`);
      }
    });
    return [...new Set(mapped)].join(" | ");
  }

  private objectType(node: SchemaObject, owner: string): string {
    const props = node.properties ?? {};
    const required = new Set(node.required ?? []);
    const members: string[] = [];
    for (const [name, sub] of Object.entries(props)) {
      const optional = required.has(name) ? "" : "?";
      const doc = this.propertyDoc(owner, name);
      members.push(`${doc}${propName(name)}${optional}: ${this.type(sub, owner)};`);
    }
    const extra = node.additionalProperties;
    const valueType =
      extra !== undefined && extra !== true && extra !== false
        ? this.type(extra, owner)
        : undefined;
    if (members.length === 0) return `Record<string, ${valueType ?? "unknown"}>`;
    if (valueType !== undefined) members.push(`[key: string]: ${valueType};`);
    return `{\n${indent(members.join("\n"))}\n}`;
  }

  private propertyDoc(owner: string, name: string): string {
    const text = TYPE_DOCS[`${owner}.${name}`];
    const isUnstable = this.unstable.properties.has(`${owner}.${name}`);
    if (text === undefined && !isUnstable) return "";
    const lines = text !== undefined ? text.split("\n") : [];
    if (isUnstable)
      lines.push("Unstable: defined only in the protocol's unstable schema.", "@experimental");
    return `/**\n${lines.map((l) => ` * ${l}`.trimEnd()).join("\n")}\n */\n`;
  }

  private unionType(branches: SchemaNode[], owner: string): string {
    const tagKeys = new Set(branches.map((b) => branchTag(b)?.key).filter((k) => k !== undefined));
    const tagKey = tagKeys.size === 1 ? [...tagKeys][0] : undefined;
    const members = branches.map((branch) => {
      if (typeof branch === "boolean") return this.type(branch, owner);
      const tag = branchTag(branch);
      if (tag !== undefined) {
        const { properties, required, type: _type, ...rest } = branch;
        const props = without(properties, tag.key);
        const stripped: SchemaObject = { ...rest };
        if (Object.keys(props).length > 0) {
          stripped.properties = props;
          stripped.type = "object";
          stripped.required = (required ?? []).filter((r) => r !== tag.key);
        }
        const body = this.type(stripped, owner);
        const tagType = `{ ${propName(tag.key)}: ${JSON.stringify(tag.value)} }`;
        return body === "unknown" ? tagType : `(${body} & ${tagType})`;
      }
      // The schema's own catch-all for unknown tags: `{ K: string } & not(known tags)`.
      if (tagKey !== undefined && branch.not !== undefined) {
        const {
          properties,
          required: _r,
          not: _n,
          type: _t,
          additionalProperties: _a,
          ...rest
        } = branch;
        const props = without(properties, tagKey);
        const scoped = this.type(
          {
            ...rest,
            ...(Object.keys(props).length > 0 ? { properties: props, type: "object" } : {}),
          },
          owner,
        );
        const open = `UnknownVariant<${JSON.stringify(tagKey)}>`;
        if (scoped === "unknown") return open;
        return scoped.includes("|") ? `((${scoped}) & ${open})` : `(${scoped} & ${open})`;
      }
      // An open string enum: `"a" | "b" | string` keeps completion for the known values.
      if (
        branch.type === "string" &&
        branch.const === undefined &&
        Object.keys(branch).every((k) => ["type", "title", "description"].includes(k))
      ) {
        return "(string & {})";
      }
      if (branch.type === "integer" && branch.const === undefined && branch.title === "Other") {
        return "(number & {})";
      }
      return this.type(branch, owner);
    });
    const unique = [...new Set(members)];
    return unique.length === 1 ? unique[0]! : unique.join("\n  | ");
  }
}
