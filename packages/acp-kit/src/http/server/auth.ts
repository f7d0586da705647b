/**
 * Authentication and Origin helpers of the HTTP server.
 *
 * @module
 */
import type { AcpPrincipal, AuthenticateResult } from "./options.js";
import { isLoopbackHost } from "./loopback.js";

/** Compares two strings in time independent of where they differ. */
function sameSecret(a: string, b: string): boolean {
  const length = Math.max(a.length, b.length);
  let diff = a.length ^ b.length;
  for (let i = 0; i < length; i++) {
    diff |= (a.charCodeAt(i % (a.length || 1)) || 0) ^ (b.charCodeAt(i % (b.length || 1)) || 0);
  }
  return diff === 0;
}

function unauthorized(message: string): Response {
  return new Response(message, {
    status: 401,
    headers: { "Content-Type": "text/plain", "WWW-Authenticate": 'Bearer realm="acp"' },
  });
}

/**
 * An `authenticate` hook accepting `Authorization: Bearer <token>`. Give one token, several,
 * or a function mapping a token to a principal (`undefined` rejects). Missing or wrong
 * tokens get 401 with `WWW-Authenticate: Bearer`. With fixed tokens the principal id is
 * `"token:<index>"`.
 */
export function bearerTokenAuth(
  tokens: string | readonly string[] | ((token: string) => AcpPrincipal | undefined),
): (request: Request) => AuthenticateResult {
  const verify =
    typeof tokens === "function"
      ? tokens
      : (token: string): AcpPrincipal | undefined => {
          const list = typeof tokens === "string" ? [tokens] : tokens;
          let found: AcpPrincipal | undefined;
          list.forEach((candidate, index) => {
            if (candidate.length > 0 && sameSecret(candidate, token))
              found = { id: `token:${index}` };
          });
          return found;
        };
  return (request) => {
    const header = request.headers.get("Authorization");
    if (header === null) return unauthorized("Missing bearer token");
    const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
    if (token === undefined) return unauthorized("Malformed Authorization header");
    return verify(token) ?? unauthorized("Invalid bearer token");
  };
}

/** Whether an `Origin` value is an http(s) origin on a loopback host (any port). */
export function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    if (url.protocol !== "http:" && url.protocol !== "https:") return false;
    return isLoopbackHost(url.hostname) || url.hostname.endsWith(".localhost");
  } catch {
    return false;
  }
}

/** Builds the Origin check of the server from its option. */
export function originChecker(
  allowed: readonly string[] | ((origin: string) => boolean) | "*" | undefined,
): (origin: string | null) => boolean {
  if (allowed === "*") return () => true;
  if (allowed === undefined) return (origin) => origin === null || isLoopbackOrigin(origin);
  if (typeof allowed === "function") return (origin) => origin === null || allowed(origin);
  const set = new Set(allowed);
  return (origin) => origin === null || set.has(origin);
}
