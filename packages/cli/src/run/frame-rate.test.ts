import { afterEach, describe, expect, it, vi } from "vitest";
import { FRAME_MS, throttleSubscribe } from "./frame-rate.js";

/** A store whose `emit` calls every listener. */
function store() {
  const listeners = new Set<() => void>();
  return {
    subscribe: (listener: () => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    emit: () => {
      for (const listener of listeners) listener();
    },
    count: () => listeners.size,
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("throttleSubscribe", () => {
  it("turns a burst of 10,000 changes into two drawings: one at once, one at the frame's end", () => {
    vi.useFakeTimers();
    const s = store();
    let calls = 0;
    throttleSubscribe(s.subscribe)(() => calls++);
    for (let i = 0; i < 10_000; i++) s.emit();
    expect(calls).toBe(1);
    vi.advanceTimersByTime(FRAME_MS);
    expect(calls).toBe(2);
    // Quiet for a frame: the next change draws at once again.
    vi.advanceTimersByTime(FRAME_MS);
    s.emit();
    expect(calls).toBe(3);
  });

  it("cancels the waiting drawing on unsubscribe", () => {
    vi.useFakeTimers();
    const s = store();
    let calls = 0;
    const unsubscribe = throttleSubscribe(s.subscribe)(() => calls++);
    s.emit();
    s.emit();
    unsubscribe();
    vi.advanceTimersByTime(FRAME_MS * 2);
    expect(calls).toBe(1);
    expect(s.count()).toBe(0);
  });

  it("passes an urgent change on at once, with what waited before it", () => {
    vi.useFakeTimers();
    const s = store();
    let calls = 0;
    let leaving = false;
    throttleSubscribe(s.subscribe, FRAME_MS, () => leaving)(() => calls++);
    s.emit();
    s.emit(); // waits for the frame's end
    expect(calls).toBe(1);
    leaving = true;
    s.emit();
    expect(calls).toBe(2);
    vi.advanceTimersByTime(FRAME_MS * 2);
    expect(calls).toBe(2); // the waiting call was taken by the urgent one
  });
});
