/**
 * {@link Clamped}: a column that is never taller than a given number of rows. When its
 * content is taller, the top is cut off and the bottom shows (the newest part of a turn).
 *
 * The live area of the view must stay shorter than the screen: when Ink's output is
 * taller, Ink clears the whole terminal (scrollback included) and redraws everything on
 * every frame. Estimating heights from text cannot be exact (wrapping, frames, margins),
 * so the content is measured after each render and the box clips it.
 *
 * @module
 */
import { Box, measureElement, type DOMElement } from "ink";
import { useLayoutEffect, useRef, useState, type ReactNode } from "react";

/** See the module comment. */
export function Clamped({
  maxRows,
  children,
}: {
  maxRows: number;
  children: ReactNode;
}): ReactNode {
  const inner = useRef<DOMElement>(null);
  // The content's own height, as last measured (one render behind: content that grows
  // is clipped for that render, never drawn too tall).
  const [height, setHeight] = useState(0);
  // Before the frame is written (layout is computed at commit): no frame at the old height.
  useLayoutEffect(() => {
    if (inner.current === null) return;
    const measured = measureElement(inner.current).height;
    if (measured !== height) setHeight(measured);
  });
  return (
    <Box
      flexDirection="column"
      justifyContent="flex-end"
      overflowY="hidden"
      flexShrink={0}
      height={Math.max(0, Math.min(height, maxRows))}
    >
      {/* Absolute: laid out at its own height whatever the box's, so that it can be measured. */}
      <Box ref={inner} position="absolute" width="100%" flexDirection="column" flexShrink={0}>
        {children}
      </Box>
    </Box>
  );
}
