/**
 * A {@link Client} whose `sessionUpdate` also feeds another consumer, everything else
 * untouched.
 *
 * @module
 */
import type { SessionNotification } from "../schema/types.gen.js";
import type { Client } from "../peer/client.js";
import { isThenable } from "../base/messages.js";

/**
 * A view of `client` whose `sessionUpdate` first calls `observe(params)`, then the
 * client's own `sessionUpdate`. Every other property is read from `client`, functions
 * bound to it (so class instances with private fields keep working), and writes go to
 * `client`. If `observe` throws, the client still sees the update, then the error is
 * rethrown (after the client's promise settles, when it returns one).
 */
export function wrapClient<C extends Client>(
  client: C,
  observe: (params: SessionNotification) => void,
): C {
  const bound = new Map<PropertyKey, { source: unknown; fn: unknown }>();
  const sessionUpdate = (params: SessionNotification): unknown => {
    let failure: { error: unknown } | undefined;
    try {
      observe(params);
    } catch (error) {
      failure = { error };
    }
    const own = (client as Partial<Client>).sessionUpdate;
    const result: unknown = typeof own === "function" ? own.call(client, params) : undefined;
    if (failure === undefined) return result;
    const { error } = failure;
    if (isThenable(result)) {
      return Promise.resolve(result).then(() => {
        throw error;
      });
    }
    throw error;
  };
  return new Proxy(client, {
    get(target, property) {
      if (property === "sessionUpdate") return sessionUpdate;
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      const cached = bound.get(property);
      if (cached?.source === value) return cached.fn;
      const fn: unknown = (value as (...args: unknown[]) => unknown).bind(target);
      bound.set(property, { source: value, fn });
      return fn;
    },
    has(target, property) {
      return property === "sessionUpdate" || Reflect.has(target, property);
    },
  });
}
