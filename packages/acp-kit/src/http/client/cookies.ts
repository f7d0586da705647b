/**
 * Cookies kept across the requests of a remote connection, so that a load balancer's
 * affinity cookie (HAProxy `cookie SERVERID insert`, ...) brings every request of a
 * connection back to the instance that holds it.
 *
 * @module
 */

/**
 * Where a remote client keeps its cookies. The shape matches the official SDK's
 * `AcpCookieStore`, so a store can be shared with it.
 */
export interface CookieStore {
  /** Adds the stored cookies to an outgoing request's `Cookie` header. */
  apply(headers: Headers): void;
  /** Stores the cookies a response sets (its `Set-Cookie` headers). */
  store(headers: Headers): void;
  /** Forgets every cookie. */
  clear(): void;
}

/**
 * A cookie store in memory: name → value, no domain, path or expiry handling (a remote
 * connection talks to one origin). A cookie set with `Max-Age=0` or an expiry in the
 * past is removed.
 */
export class MemoryCookieStore implements CookieStore {
  private readonly cookies = new Map<string, string>();

  apply(headers: Headers): void {
    const merged = new Map<string, string>(this.cookies);
    // Cookies the caller put in the request win over stored ones.
    for (const [name, value] of parseCookieHeader(headers.get("Cookie"))) merged.set(name, value);
    if (merged.size === 0) return;
    headers.set("Cookie", [...merged].map(([name, value]) => `${name}=${value}`).join("; "));
  }

  store(headers: Headers): void {
    for (const line of setCookieLines(headers)) {
      const parsed = parseSetCookie(line);
      if (parsed === undefined) continue;
      if (parsed.expired) this.cookies.delete(parsed.name);
      else this.cookies.set(parsed.name, parsed.value);
    }
  }

  clear(): void {
    this.cookies.clear();
  }

  /** The stored cookies as a `Cookie` header value, or `undefined` when there are none. */
  header(): string | undefined {
    if (this.cookies.size === 0) return undefined;
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

function setCookieLines(headers: Headers): string[] {
  if (typeof headers.getSetCookie === "function") return headers.getSetCookie();
  const joined = headers.get("Set-Cookie");
  // Without getSetCookie the values come joined by ", "; split where a new name=value starts.
  return joined === null ? [] : joined.split(/,(?=\s*[^;,\s]+=)/).map((s) => s.trim());
}

function parseSetCookie(
  line: string,
): { name: string; value: string; expired: boolean } | undefined {
  const [pair = "", ...attributes] = line.split(";");
  const eq = pair.indexOf("=");
  if (eq <= 0) return undefined;
  const name = pair.slice(0, eq).trim();
  if (name === "") return undefined;
  let expired = false;
  for (const attribute of attributes) {
    const [key = "", raw = ""] = attribute.split("=", 2).map((s) => s.trim());
    const lower = key.toLowerCase();
    if (lower === "max-age" && Number(raw) <= 0) expired = true;
    if (lower === "expires") {
      const when = Date.parse(raw);
      if (!Number.isNaN(when) && when <= Date.now()) expired = true;
    }
  }
  return { name, value: pair.slice(eq + 1).trim(), expired };
}

function parseCookieHeader(header: string | null): [string, string][] {
  if (header === null) return [];
  const out: [string, string][] = [];
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (name !== "") out.push([name, part.slice(eq + 1).trim()]);
  }
  return out;
}
