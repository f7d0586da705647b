/**
 * What a {@link TestClient} records: every update, request and notification from the
 * agent, in arrival order, as plain deterministic data (no timestamps).
 *
 * @module
 */
import { RequestError } from "../../jsonrpc/errors.js";
import type { MaybePromise } from "../../base/messages.js";
import type { SessionUpdate } from "../../schema/types.gen.js";
import type { SessionUpdate as SessionUpdateV2 } from "../../schema/v2/types.gen.js";

/** A `session/update` the agent sent. */
export interface UpdateRecord {
  /** Discriminator of {@link TestClientRecord}. */
  readonly type: "update";
  /** The session it is about. */
  readonly sessionId: string;
  /** The update. */
  readonly update: SessionUpdate;
}

/** A v2 `session/update` the agent sent (a {@link TestClient} speaking v2 records these). */
export interface UpdateRecordV2 {
  /** Discriminator of {@link TestClientRecord}. */
  readonly type: "update_v2";
  /** The session it is about. */
  readonly sessionId: string;
  /** The v2 update. */
  readonly update: SessionUpdateV2;
}

/** How the client answered a request. */
export type RecordedResponse =
  | { readonly result: unknown }
  | {
      readonly error: { readonly code: number; readonly message: string; readonly data?: unknown };
    };

/** A request the agent sent to the client, and (once given) the client's answer. */
export interface RequestRecord {
  /** Discriminator of {@link TestClientRecord}. */
  readonly type: "request";
  /** The wire method, e.g. `fs/read_text_file`. */
  readonly method: string;
  /** Its params. */
  readonly params: unknown;
  /** The answer, once given (absent while the request is pending). */
  readonly response?: RecordedResponse;
}

/** A notification other than `session/update` (extension notifications, `elicitation/complete`). */
export interface NotificationRecord {
  /** Discriminator of {@link TestClientRecord}. */
  readonly type: "notification";
  /** The wire method. */
  readonly method: string;
  /** Its params. */
  readonly params: unknown;
}

/** One thing the agent sent to a {@link TestClient}. */
export type TestClientRecord = UpdateRecord | UpdateRecordV2 | RequestRecord | NotificationRecord;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function errorOf(error: unknown): RecordedResponse {
  if (error instanceof RequestError) {
    return {
      error: {
        code: error.code,
        message: error.message,
        ...(error.data === undefined ? {} : { data: error.data }),
      },
    };
  }
  return {
    error: { code: -32603, message: error instanceof Error ? error.message : String(error) },
  };
}

/** The list of records and the wrappers that fill it. */
export class Recorder {
  /** Every record, in arrival order. */
  readonly records: TestClientRecord[] = [];

  /** Records a `session/update`. */
  update(sessionId: string, update: SessionUpdate): void {
    this.records.push({ type: "update", sessionId, update });
  }

  /** Records a v2 `session/update`. */
  updateV2(sessionId: string, update: SessionUpdateV2): void {
    this.records.push({ type: "update_v2", sessionId, update });
  }

  /** Records a notification. */
  notification(method: string, params: unknown): void {
    this.records.push({ type: "notification", method, params });
  }

  /**
   * Wraps a request handler so that the request is recorded on arrival and its answer
   * (result, or error) once given.
   */
  request<P, R>(
    method: string,
    handler: (params: P) => MaybePromise<R>,
  ): (params: P) => Promise<R> {
    return async (params: P) => {
      const record: Mutable<RequestRecord> = { type: "request", method, params };
      this.records.push(record);
      try {
        const result = await handler(params);
        record.response = { result: result ?? {} };
        return result;
      } catch (error) {
        record.response = errorOf(error);
        throw error;
      }
    };
  }
}
