/**
 * {@link StepRunner}: runs the steps of one scenario turn inside an `AgentKit` prompt turn.
 *
 * @module
 */
import type { PromptTurn } from "../../agent/prompt-turn.js";
import { ErrorCodes } from "../../base/error-codes.js";
import { RequestError } from "../../jsonrpc/errors.js";
import type * as schema from "../../schema/types.gen.js";
import {
  renderDeep,
  renderTemplate,
  resolvePath,
  solePlaceholder,
} from "../scenario/placeholders.js";
import type { ClientCallBranches, ScenarioStep } from "../scenario/step-types.js";
import { stepKind, type StepKind, type StepOf } from "../scenario/vocabulary.js";
import type { ScriptedSession } from "./sessions.js";
import { errorMessage, pause } from "./timing.js";

/** What a step tells the runner: go on (`undefined`), or end the turn with a stop reason. */
export type Flow = { readonly stop: schema.StopReason } | undefined;

/** Runs one step of a kind. @internal */
export type StepHandler<S> = (runner: StepRunner, step: S) => Promise<Flow>;

/** A handler for every kind of step. @internal */
export type StepHandlers = { readonly [K in StepKind]: StepHandler<StepOf<K>> };

/** What a turn needs from its agent. @internal */
export interface TurnEnvironment {
  /** The client's capabilities from `initialize`. */
  readonly clientCapabilities: () => schema.ClientCapabilities;
  /** Multiplies every delay; 0 turns them off. */
  readonly delayScale: number;
}

/**
 * Runs steps for one turn: renders placeholders, resolves paths, keeps the values steps
 * save, and stops at cancellation (except in the steps that run after it).
 * @internal
 */
export class StepRunner {
  /** True once the turn is cancelled and the steps that run after it are running. */
  afterCancel = false;
  /** The tool call the latest `toolCall` step reported. */
  lastToolCallId: string | undefined;
  private readonly values: Map<string, string>;

  constructor(
    readonly turn: PromptTurn<ScriptedSession>,
    readonly env: TurnEnvironment,
    values: ReadonlyMap<string, string>,
    private readonly handlers: StepHandlers,
  ) {
    this.values = new Map(values);
    this.values.set("cwd", turn.session.cwd);
    this.values.set("sessionId", turn.sessionId);
  }

  /** The session the turn runs in. */
  get session(): ScriptedSession {
    return this.turn.session;
  }

  /** Runs steps in order; returns how the turn ends, or `undefined` to go on. */
  async run(steps: readonly ScenarioStep[] | undefined): Promise<Flow> {
    for (const step of steps ?? []) {
      if (!this.afterCancel) this.turn.throwIfCancelled();
      const handler = this.handlers[stepKind(step)] as StepHandler<ScenarioStep>;
      const flow = await handler(this, step);
      if (flow !== undefined) return flow;
    }
    return undefined;
  }

  /** Sets (or, with `undefined`, unsets) a placeholder value. */
  set(name: string, value: string | undefined): void {
    if (value === undefined) this.values.delete(name);
    else this.values.set(name, value);
  }

  /** The value of a placeholder, if it has one. */
  lookup = (name: string): string | undefined => this.values.get(name);

  /** A string with its placeholders replaced. */
  text(template: string): string {
    return renderTemplate(template, this.lookup);
  }

  /** A value with the placeholders of every string inside replaced. */
  deep<T>(value: T): T {
    return renderDeep(value, this.lookup);
  }

  /** A rendered path, resolved against the session's cwd when relative. */
  path(template: string): string {
    return resolvePath(this.session.cwd, this.text(template));
  }

  /** True when `template` is exactly one placeholder that has no value. */
  isUnset(template: string): boolean {
    const name = solePlaceholder(template);
    return name !== undefined && !this.values.has(name);
  }

  /** Sends one update of the turn. */
  send(update: schema.SessionUpdate): Promise<void> {
    return this.turn.update(update);
  }

  /** Waits `ms` (scaled); skipped after cancellation. */
  async sleep(ms: number | undefined): Promise<void> {
    if (this.afterCancel || ms === undefined) return;
    await pause(ms * this.env.delayScale, this.turn.signal);
  }

  /** The id of the tool call a step names, or the turn's latest. */
  toolCallId(template: string | undefined): string {
    if (template !== undefined) return this.text(template);
    if (this.lastToolCallId !== undefined) return this.lastToolCallId;
    throw new RequestError(ErrorCodes.INTERNAL_ERROR, "The scenario names no tool call here");
  }

  /**
   * Calls the client for a step with `then` / `onError` branches: on success `done` runs,
   * then the `then` steps; on failure the `onError` steps run with `${error}` set (a
   * failure without `onError`, or caused by the cancellation, is thrown).
   */
  async callClient<T>(
    step: ClientCallBranches,
    call: () => Promise<T>,
    done: (result: T) => void,
  ): Promise<Flow> {
    let result: T;
    try {
      result = await call();
    } catch (error) {
      if (this.turn.cancelled || step.onError === undefined) throw error;
      this.set("error", errorMessage(error));
      return this.run(step.onError);
    }
    done(result);
    return this.run(step.then);
  }

  /**
   * Throws unless the client advertised a capability.
   *
   * @param offered - Whether it did.
   * @param what - The capability, for the message.
   */
  requireCapability(offered: boolean | undefined, what: string): void {
    if (offered === true) return;
    throw new RequestError(
      ErrorCodes.INTERNAL_ERROR,
      `The client does not advertise clientCapabilities.${what}`,
    );
  }
}
