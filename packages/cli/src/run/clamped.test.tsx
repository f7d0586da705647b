import { PassThrough } from "node:stream";
import { Box, render, Text } from "ink";
import type { ReactNode } from "react";
import { describe, expect, it } from "vitest";
import { inCi } from "../live-view.js";
import { Clamped } from "./clamped.js";

/** Renders in Ink's debug mode (every frame written whole) and collects the frames. */
function frames(tree: ReactNode, rows = 20) {
  const stdout = Object.assign(new PassThrough(), { columns: 40, rows, isTTY: true });
  const written: string[] = [];
  stdout.on("data", (chunk: Buffer) => written.push(chunk.toString("utf8")));
  const instance = render(tree, {
    stdout: stdout as unknown as NodeJS.WriteStream,
    debug: true,
    patchConsole: false,
  });
  const lines = (frame: string) => frame.replace(/\n$/, "").split("\n");
  return { stdout, written, lines, instance };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

/** `items` lines above a one-line status, on a 20-row screen with 12 rows spare: 8 rows. */
function View({ items, spareRows = 12 }: { items: number; spareRows?: number }): ReactNode {
  return (
    <Clamped
      spareRows={spareRows}
      bottom={
        <Box marginTop={1} flexShrink={0}>
          <Text>STATUS</Text>
        </Box>
      }
    >
      {Array.from({ length: items }, (_, i) => (
        <Text key={i}>line {i + 1}</Text>
      ))}
    </Clamped>
  );
}

const tail = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}`);

describe("Clamped", () => {
  it("never draws a frame taller than its limit, its first one included", async () => {
    const t = frames(<View items={30} />);
    await settle();
    expect(t.written.length).toBeGreaterThan(0);
    for (const frame of t.written) expect(t.lines(frame).length).toBeLessThanOrEqual(8);
    // The newest items show, the top is cut; the bottom part is whole.
    expect(t.lines(t.written.at(-1) ?? "")).toEqual([...tail(25, 30), "", "STATUS"]);
    t.instance.unmount();
  });

  it("follows the content down at once, and a new limit from its first frame", async () => {
    const t = frames(<View items={30} />);
    await settle();
    t.written.length = 0;
    t.instance.rerender(<View items={2} />);
    await settle();
    // No frame at the old height when the content shrinks.
    expect(t.written.map((frame) => t.lines(frame))).toEqual([["line 1", "line 2", "", "STATUS"]]);
    t.written.length = 0;
    t.instance.rerender(<View items={30} spareRows={15} />);
    await settle();
    for (const frame of t.written) expect(t.lines(frame).length).toBeLessThanOrEqual(5);
    expect(t.lines(t.written.at(-1) ?? "")).toEqual([...tail(28, 30), "", "STATUS"]);
    t.instance.unmount();
  });

  // Ink does not listen for resizes when CI is set; the tmux test of the CLI (run with CI
  // unset) covers this there.
  it.skipIf(inCi(process.env))(
    "takes the new screen height before Ink redraws for a resize",
    async () => {
      const t = frames(<View items={30} spareRows={2} />, 20);
      await settle();
      t.written.length = 0;
      t.stdout.rows = 10;
      t.stdout.emit("resize");
      await settle();
      expect(t.written.length).toBeGreaterThan(0);
      for (const frame of t.written) expect(t.lines(frame).length).toBeLessThanOrEqual(8);
      expect(t.lines(t.written.at(-1) ?? "")).toEqual([...tail(25, 30), "", "STATUS"]);
      t.instance.unmount();
    },
  );
});
