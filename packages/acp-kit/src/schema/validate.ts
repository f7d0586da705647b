/**
 * Validating values against protocol types at run time.
 *
 * @module
 */
import { runValidator, type ValidateOptions, type ValidationResult } from "../base/validation.js";
import type { SchemaTypes } from "./types.gen.js";
import { DEF_VALIDATORS, type ValidatedType } from "./validators.gen.js";

/**
 * Checks `value` against the protocol type named `type`, exactly as the official JSON
 * Schema does (except that, unless `strict`, unknown variants of open unions pass).
 *
 * ```ts
 * const result = validate("SessionNotification", message.params);
 * if (!result.ok) console.error(result.issues); // [{ path: "/update/content/text", message: "must be string" }]
 * ```
 */
export function validate<N extends ValidatedType>(
  type: N,
  value: unknown,
  options?: ValidateOptions,
): ValidationResult<SchemaTypes[N]> {
  return runValidator<SchemaTypes[N]>(DEF_VALIDATORS[type], value, options?.strict === true);
}

/** True when `value` is a valid instance of the protocol type named `type`. */
export function isValid<N extends ValidatedType>(type: N, value: unknown): value is SchemaTypes[N] {
  return validate(type, value).ok;
}
