import { Text } from "ink";
import { useLayoutEffect, useState, type ReactNode } from "react";
import { describe, expect, it } from "vitest";
import { renderWithKeys, terminal, tick } from "../../../../test/support/ink-terminal.js";
import { KeyRouter, useKeys } from "./keys.js";

/** A view that records the keys it gets; `onDrawn` runs as soon as it is drawn. */
function Pane(props: {
  name: string;
  log: string[];
  active?: boolean;
  onDrawn?: () => void;
}): ReactNode {
  useKeys((input) => props.log.push(`${props.name}:${input}`), {
    isActive: props.active !== false,
  });
  const { onDrawn } = props;
  useLayoutEffect(() => {
    onDrawn?.();
  }, [onDrawn]);
  return <Text>{props.name}</Text>;
}

/** Lets the test ask and withdraw the question from outside the view. */
interface Asking {
  set?: (value: boolean) => void;
}

/**
 * As the live view: an input line that a question disables, and the question. The question
 * comes as a state change (as a picker opens), which React draws in a task of its own and
 * follows with the passive effects in another.
 */
function Screen(props: { asking: Asking; log: string[]; onDrawn: () => void }): ReactNode {
  const [asking, setAsking] = useState(false);
  props.asking.set = setAsking;
  return (
    <>
      <Pane name="line" log={props.log} active={!asking} />
      {asking ? <Pane name="question" log={props.log} onDrawn={props.onDrawn} /> : null}
    </>
  );
}

const options = (t: ReturnType<typeof terminal>) => ({
  stdout: t.stdout,
  stdin: t.stdin,
  patchConsole: false,
  debug: true,
});

describe("useKeys", () => {
  it("gives a key read right after a question is drawn to the question, not the line under it", async () => {
    const log: string[] = [];
    const t = terminal();
    const asking: Asking = {};
    // The key comes the moment the question is on the screen: before React's passive
    // effects (where Ink's own `useInput` moves its listeners) have run.
    const instance = renderWithKeys(
      <Screen asking={asking} log={log} onDrawn={() => t.chunk("1")} />,
      options(t),
    );
    await tick();
    t.chunk("a");
    await tick();
    asking.set?.(true);
    await tick();
    asking.set?.(false);
    await tick();
    t.chunk("b");
    await tick();
    instance.unmount();
    expect(log).toEqual(["line:a", "question:1", "line:b"]);
  });

  it("calls nothing of a view that is gone", async () => {
    const log: string[] = [];
    const t = terminal();
    const instance = renderWithKeys(<Pane name="only" log={log} />, options(t));
    await tick();
    t.chunk("a");
    await tick();
    instance.rerender(
      <KeyRouter>
        <Text>nothing</Text>
      </KeyRouter>,
    );
    t.chunk("b");
    await tick();
    instance.unmount();
    expect(log).toEqual(["only:a"]);
  });
});
