/**
 * Brands that make `instanceof` work across separately loaded copies of this library
 * (its ESM and CJS builds in one process, or two installed versions): each branded class
 * marks its prototype with a registry symbol (`Symbol.for`), which every copy shares, and
 * answers `instanceof` by that mark. Subclasses keep the ordinary prototype-chain test.
 *
 * @module
 */

/** Marks `cls.prototype` with `brand`, so instances of any copy carry it. */
export function setBrand(cls: abstract new (...args: never[]) => unknown, brand: symbol): void {
  Object.defineProperty(cls.prototype, brand, { value: true });
}

/**
 * The `instanceof` answer for `cls`: by `brand` when `cls` is the branded class itself
 * (`base`), by the prototype chain for its subclasses.
 */
export function isBranded(cls: unknown, base: unknown, brand: symbol, value: unknown): boolean {
  if (cls !== base) return Function.prototype[Symbol.hasInstance].call(cls, value);
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<symbol, unknown>)[brand] === true
  );
}
