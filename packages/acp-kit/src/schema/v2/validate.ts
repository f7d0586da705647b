/**
 * Validating values against ACP v2 types at run time.
 *
 * @module
 */
import {
  runValidator,
  type ValidateOptions,
  type ValidationResult,
} from "../../base/validation.js";
import type { SchemaTypes } from "./types.gen.js";
import { DEF_VALIDATORS, type ValidatedType } from "./validators.gen.js";

/**
 * Checks `value` against the ACP v2 type named `type`, exactly as the pinned v2 JSON
 * Schema does. v2's unions are open in the schema itself (each has an `other` branch), so
 * unknown variants are valid in both modes; `strict` changes nothing else.
 *
 * ```ts
 * const result = validateV2("SessionUpdate", params.update);
 * if (!result.ok) console.error(result.issues);
 * ```
 */
export function validateV2<N extends ValidatedType>(
  type: N,
  value: unknown,
  options?: ValidateOptions,
): ValidationResult<SchemaTypes[N]> {
  return runValidator<SchemaTypes[N]>(DEF_VALIDATORS[type], value, options?.strict === true);
}

/** True when `value` is a valid instance of the ACP v2 type named `type`. */
export function isValidV2<N extends ValidatedType>(
  type: N,
  value: unknown,
): value is SchemaTypes[N] {
  return validateV2(type, value).ok;
}
