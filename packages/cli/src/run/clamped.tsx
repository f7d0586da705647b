/**
 * {@link Clamped}: the live area of the view, never taller than the screen less a few
 * spare rows. The `bottom` part (status and input lines) always shows whole; the content
 * above it gets the rest, and when it is taller its top is cut off, so that its newest
 * part shows.
 *
 * The live area must stay shorter than the screen: when Ink's output is taller, Ink
 * clears the whole terminal (scrollback included) and redraws everything. Heights cannot
 * be estimated from text (wrapping, frames, margins), so the layout engine does it:
 * Yoga's max-height on the area, which Ink's `Box` does not expose, is set on its layout
 * node. Nothing is measured after the fact, so no frame is drawn at an old height (a
 * stale taller frame would also leave blank rows under the input line once it shrinks).
 * When the terminal is resized, the limit changes before Ink lays out again.
 *
 * @module
 */
import { Box, useStdout, type DOMElement } from "ink";
import { useCallback, useLayoutEffect, useRef, useState, type ReactNode } from "react";

/** The most rows the live area may take on a screen of `screenRows` rows. */
export function clampRows(screenRows: number | undefined, spareRows: number): number {
  const rows = screenRows !== undefined && screenRows > 0 ? screenRows : 24;
  return Math.max(1, Math.floor(rows - spareRows));
}

/** See the module comment. */
export function Clamped({
  spareRows,
  bottom,
  children,
}: {
  /** Rows of the screen the live area leaves free. */
  spareRows: number;
  bottom: ReactNode;
  children: ReactNode;
}): ReactNode {
  const { stdout } = useStdout();
  const area = useRef<DOMElement | null>(null);
  const apply = useCallback((): void => {
    area.current?.yogaNode?.setMaxHeight(clampRows(stdout.rows, spareRows));
  }, [stdout, spareRows]);
  // Set when the node is attached, and again on every render (before the layout of the
  // frame it belongs to) so that a new limit holds from its first frame.
  const attach = useCallback(
    (node: DOMElement | null) => {
      area.current = node;
      apply();
    },
    [apply],
  );
  apply();
  // Ink redraws on resize before React renders again: set the new limit first.
  useLayoutEffect(() => {
    stdout.prependListener("resize", apply);
    return () => {
      stdout.off("resize", apply);
    };
  }, [stdout, apply]);
  // The first layout of a new node comes before its ref is attached: the items wait for
  // the next render, or that first frame would be drawn unclamped.
  const [attached, setAttached] = useState(false);
  useLayoutEffect(() => setAttached(true), []);
  return (
    <Box ref={attach} flexDirection="column" flexShrink={0}>
      {/* Shrinks to what `bottom` leaves; its content keeps its height, cut at the top. */}
      <Box flexDirection="column" justifyContent="flex-end" overflowY="hidden" flexShrink={1}>
        <Box flexDirection="column" flexShrink={0}>
          {attached ? children : null}
        </Box>
      </Box>
      {bottom}
    </Box>
  );
}
