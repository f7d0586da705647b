/**
 * {@link Clamped}: the live area of the view, never taller than a given number of rows.
 * The `bottom` part (status and input lines) always shows whole; the content above it
 * gets the rest, and when it is taller its top is cut off, so that its newest part shows.
 *
 * The live area must stay shorter than the screen: when Ink's output is taller, Ink
 * clears the whole terminal (scrollback included) and redraws everything on every frame.
 * Heights cannot be estimated from text (wrapping, frames, margins), so the layout engine
 * does it: Yoga's max-height on the area, which Ink's `Box` does not expose, is set on its
 * layout node. Nothing is measured after the fact, so no frame is drawn at an old height:
 * a stale taller frame would leave blank rows under the input line once it shrinks.
 *
 * @module
 */
import { Box, type DOMElement } from "ink";
import { useCallback, useLayoutEffect, useRef, useState, type ReactNode } from "react";

/** See the module comment. */
export function Clamped({
  maxRows,
  bottom,
  children,
}: {
  maxRows: number;
  bottom: ReactNode;
  children: ReactNode;
}): ReactNode {
  const rows = Math.max(1, Math.floor(maxRows));
  const area = useRef<DOMElement | null>(null);
  // Set when the node is attached, and again on every render (before the layout of the
  // frame it belongs to) so that a new limit holds from its first frame.
  const attach = useCallback(
    (node: DOMElement | null) => {
      area.current = node;
      node?.yogaNode?.setMaxHeight(rows);
    },
    [rows],
  );
  area.current?.yogaNode?.setMaxHeight(rows);
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
