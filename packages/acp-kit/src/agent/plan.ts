/**
 * {@link PlanHandle}: a turn's plan, kept as entries with statuses and sent whole on
 * every change, as the protocol requires.
 *
 * @module
 */
import type * as schema from "../schema/types.gen.js";

/**
 * A plan step: its text alone (priority `medium`, status `pending`), or an entry with
 * optional priority and status.
 */
export type PlanStep =
  | string
  | {
      /** What the step does. */
      readonly content: string;
      /** Default `medium`. */
      readonly priority?: schema.PlanEntryPriority;
      /** Default `pending`. */
      readonly status?: schema.PlanEntryStatus;
      /** Metadata of the entry. */
      readonly _meta?: Record<string, unknown>;
    };

/** Names a plan entry: its index, or its exact text. */
export type PlanEntryRef = number | string;

/**
 * A turn's plan, made by {@link PromptTurn.plan}. Every change sends a `plan` update
 * with every entry and its current status (the client replaces its plan wholesale);
 * a change that changes nothing sends nothing.
 *
 * ```ts
 * const plan = turn.plan(["Read the file", "Fix the bug", "Run the tests"]);
 * await plan.start(0);
 * await plan.advance(); // completes "Read the file", starts "Fix the bug"
 * ```
 */
export class PlanHandle {
  private list: schema.PlanEntry[];

  /**
   * Made by {@link PromptTurn.plan}; not meant to be called directly.
   *
   * @param send - Sends one update of the turn.
   * @param steps - The first entries.
   */
  constructor(
    private readonly send: (update: schema.SessionUpdate) => Promise<void>,
    steps: readonly PlanStep[],
  ) {
    this.list = steps.map(toEntry);
  }

  /** The entries as last sent (copies). */
  get entries(): schema.PlanEntry[] {
    return this.list.map((entry) => ({ ...entry }));
  }

  /**
   * Replaces every entry.
   *
   * @param steps - The new plan.
   */
  replace(steps: readonly PlanStep[]): Promise<void> {
    this.list = steps.map(toEntry);
    return this.publish();
  }

  /**
   * Appends entries.
   *
   * @param steps - The entries to add at the end.
   */
  add(...steps: PlanStep[]): Promise<void> {
    if (steps.length === 0) return Promise.resolve();
    this.list.push(...steps.map(toEntry));
    return this.publish();
  }

  /**
   * Removes an entry.
   *
   * @param entry - Its index or text.
   * @throws RangeError when there is no such entry.
   */
  remove(entry: PlanEntryRef): Promise<void> {
    this.list.splice(this.indexOf(entry), 1);
    return this.publish();
  }

  /**
   * Sets an entry's status.
   *
   * @param entry - Its index or text.
   * @param status - The new status.
   * @throws RangeError when there is no such entry.
   */
  setStatus(entry: PlanEntryRef, status: schema.PlanEntryStatus): Promise<void> {
    const target = this.at(this.indexOf(entry));
    if (target.status === status) return Promise.resolve();
    target.status = status;
    return this.publish();
  }

  /**
   * Marks an entry `in_progress`.
   *
   * @param entry - Its index or text.
   */
  start(entry: PlanEntryRef): Promise<void> {
    return this.setStatus(entry, "in_progress");
  }

  /**
   * Marks an entry `completed`.
   *
   * @param entry - Its index or text.
   */
  complete(entry: PlanEntryRef): Promise<void> {
    return this.setStatus(entry, "completed");
  }

  /**
   * Moves on, in one update: every `in_progress` entry becomes `completed` and the first
   * `pending` entry becomes `in_progress`.
   */
  advance(): Promise<void> {
    let changed = false;
    for (const entry of this.list) {
      if (entry.status !== "in_progress") continue;
      entry.status = "completed";
      changed = true;
    }
    const next = this.list.find((entry) => entry.status === "pending");
    if (next !== undefined) {
      next.status = "in_progress";
      changed = true;
    }
    return changed ? this.publish() : Promise.resolve();
  }

  /** Sends the whole plan again (every change already does). */
  publish(): Promise<void> {
    return this.send({ sessionUpdate: "plan", entries: this.entries });
  }

  private indexOf(entry: PlanEntryRef): number {
    const index =
      typeof entry === "number" ? entry : this.list.findIndex((e) => e.content === entry);
    if (!Number.isInteger(index) || index < 0 || index >= this.list.length) {
      throw new RangeError(`No plan entry ${JSON.stringify(entry)}`);
    }
    return index;
  }

  private at(index: number): schema.PlanEntry {
    const entry = this.list[index];
    if (entry === undefined) throw new RangeError(`No plan entry ${index}`);
    return entry;
  }
}

function toEntry(step: PlanStep): schema.PlanEntry {
  if (typeof step === "string") return { content: step, priority: "medium", status: "pending" };
  const entry: schema.PlanEntry = {
    content: step.content,
    priority: step.priority ?? "medium",
    status: step.status ?? "pending",
  };
  if (step._meta !== undefined) entry._meta = step._meta;
  return entry;
}
