import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MemoryCookieStore } from "./cookies.js";

/** Response headers with these `Set-Cookie` lines. */
function setting(...lines: string[]): Headers {
  const headers = new Headers();
  for (const line of lines) headers.append("Set-Cookie", line);
  return headers;
}

/** The `Cookie` header the store puts on a fresh request. */
function sent(store: MemoryCookieStore): string | null {
  const headers = new Headers();
  store.apply(headers);
  return headers.get("Cookie");
}

describe("MemoryCookieStore", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-01-01T00:00:00Z"));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("sends a cookie with Max-Age or Expires until then, and not after", () => {
    const store = new MemoryCookieStore();
    store.store(
      setting(
        "short=1; Max-Age=60; Path=/",
        "dated=2; Expires=Thu, 01 Jan 2026 00:05:00 GMT",
        "session=3",
      ),
    );
    expect(sent(store)).toBe("short=1; dated=2; session=3");
    vi.setSystemTime(new Date("2026-01-01T00:01:00Z"));
    expect(sent(store)).toBe("dated=2; session=3");
    vi.setSystemTime(new Date("2026-01-01T00:05:00Z"));
    expect(sent(store)).toBe("session=3");
    expect(store.header()).toBe("session=3");
  });

  it("Max-Age wins over Expires; zero, negative or a past date removes the cookie", () => {
    const store = new MemoryCookieStore();
    store.store(setting("a=1; Expires=Thu, 01 Jan 2026 10:00:00 GMT; Max-Age=10", "b=2", "c=3"));
    vi.setSystemTime(new Date("2026-01-01T00:00:11Z"));
    expect(sent(store)).toBe("b=2; c=3");
    store.store(setting("b=x; Max-Age=0", "c=x; Expires=Wed, 31 Dec 2025 00:00:00 GMT"));
    expect(sent(store)).toBeNull();
    store.store(setting("d=4; Max-Age=-1", "e=5; Max-Age=soon"));
    expect(sent(store)).toBe("e=5"); // an unreadable Max-Age is ignored
  });

  it("a cookie set again takes the new value and expiry; the request's own cookies win", () => {
    const store = new MemoryCookieStore();
    store.store(setting("id=old; Max-Age=5"));
    store.store(setting("id=new"));
    vi.setSystemTime(new Date("2026-01-01T01:00:00Z"));
    const headers = new Headers({ Cookie: "mine=1" });
    store.apply(headers);
    expect(headers.get("Cookie")).toBe("id=new; mine=1");
    headers.set("Cookie", "id=caller");
    store.apply(headers);
    expect(headers.get("Cookie")).toBe("id=caller");
  });
});
