/**
 * The shape of a row of the generated method table.
 *
 * @module
 */
import type { RawValidator } from "../base/validation.js";

/** Which side of a connection answers a method. */
export type MethodHandler = "agent" | "client" | "both";

/** One protocol method: its wire name, direction, shape and validators. */
export interface MethodSpec {
  /** The wire name, for example `session/prompt`. */
  readonly method: string;
  /** The side that receives and handles it (`both` for protocol-level methods). */
  readonly handledBy: MethodHandler;
  /** Whether it is a request (answered) or a notification (not answered). */
  readonly kind: "request" | "notification";
  /** The schema name of its params. */
  readonly paramsType: string;
  /** The schema name of its result (requests only). */
  readonly resultType?: string;
  /** Validates params as received. */
  readonly validateParams: RawValidator;
  /** Validates a result as received (requests only). */
  readonly validateResult?: RawValidator;
  /** True when the method is part of the stable protocol, false when unstable. */
  readonly stable: boolean;
  /** True when the result has no required fields (`{}` is a complete answer). */
  readonly emptyResult: boolean;
  /** True when the params have no required fields (absent params mean `{}`). */
  readonly optionalParams: boolean;
}
