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

/** A stored cookie: its value and when it expires (ms since the epoch; none: never). */
interface StoredCookie {
  readonly value: string;
  readonly expiresAt: number | undefined;
}

/**
 * A cookie store in memory, by name. Expiry is honoured: a cookie set with `Max-Age` or
 * `Expires` is sent until then (`Max-Age` wins when both are given), and one set with
 * `Max-Age=0` or an expiry in the past is removed. `Domain` and `Path` are not looked at:
 * a remote connection talks to one endpoint of one origin, and {@link CookieStore.apply}
 * does not get the request's URL.
 */
export class MemoryCookieStore implements CookieStore {
  private readonly cookies = new Map<string, StoredCookie>();

  apply(headers: Headers): void {
    const merged = new Map<string, string>(this.current());
    // Cookies the caller put in the request win over stored ones.
    for (const [name, value] of parseCookieHeader(headers.get("Cookie"))) merged.set(name, value);
    if (merged.size === 0) return;
    headers.set("Cookie", [...merged].map(([name, value]) => `${name}=${value}`).join("; "));
  }

  store(headers: Headers): void {
    for (const line of setCookieLines(headers)) {
      const parsed = parseSetCookie(line);
      if (parsed === undefined) continue;
      if (parsed.expiresAt !== undefined && parsed.expiresAt <= Date.now()) {
        this.cookies.delete(parsed.name);
      } else {
        this.cookies.set(parsed.name, { value: parsed.value, expiresAt: parsed.expiresAt });
      }
    }
  }

  clear(): void {
    this.cookies.clear();
  }

  /** The stored cookies as a `Cookie` header value, or `undefined` when there are none. */
  header(): string | undefined {
    const current = this.current();
    if (current.length === 0) return undefined;
    return current.map(([name, value]) => `${name}=${value}`).join("; ");
  }

  /** The cookies not expired yet, as name and value; drops the expired ones. */
  private current(): [string, string][] {
    const now = Date.now();
    const out: [string, string][] = [];
    for (const [name, cookie] of this.cookies) {
      if (cookie.expiresAt !== undefined && cookie.expiresAt <= now) this.cookies.delete(name);
      else out.push([name, cookie.value]);
    }
    return out;
  }
}

function setCookieLines(headers: Headers): string[] {
  if (typeof headers.getSetCookie === "function") return headers.getSetCookie();
  const joined = headers.get("Set-Cookie");
  // Without getSetCookie the values come joined by ", "; split where a new name=value starts.
  return joined === null ? [] : joined.split(/,(?=\s*[^;,\s]+=)/).map((s) => s.trim());
}

/** A `Set-Cookie` line: name, value, and when it expires (none: at the end of the session). */
function parseSetCookie(
  line: string,
): { name: string; value: string; expiresAt: number | undefined } | undefined {
  const [pair = "", ...attributes] = line.split(";");
  const eq = pair.indexOf("=");
  if (eq <= 0) return undefined;
  const name = pair.slice(0, eq).trim();
  if (name === "") return undefined;
  let maxAge: number | undefined;
  let expires: number | undefined;
  for (const attribute of attributes) {
    const at = attribute.indexOf("=");
    const key = (at < 0 ? attribute : attribute.slice(0, at)).trim().toLowerCase();
    const raw = at < 0 ? "" : attribute.slice(at + 1).trim();
    if (key === "max-age" && /^-?\d+$/.test(raw)) {
      // RFC 6265: zero or less expires at once.
      maxAge = Math.max(0, Number(raw));
    } else if (key === "expires") {
      const when = Date.parse(raw);
      if (!Number.isNaN(when)) expires = when;
    }
  }
  const now = Date.now();
  const expiresAt = maxAge !== undefined ? now + maxAge * 1000 : expires;
  return { name, value: pair.slice(eq + 1).trim(), expiresAt };
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
