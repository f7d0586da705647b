/**
 * A picker: a titled list of values, the current one marked and highlighted at first;
 * `↑`/`↓` move, `Enter` (or a digit) chooses, `Esc` leaves. Used by `/mode`, `/model`
 * and `/sessions` typed without an argument. The highlight is read when the key comes
 * (see `selection.ts`): `↓` and `Enter` in one chunk choose the value below.
 *
 * @module
 */
import { Box, Text } from "ink";
import { useKeys } from "./keys.js";
import type { ReactNode } from "react";
import { useSelection } from "./selection.js";
import { oneLine } from "./slash.js";

/** One value of a picker. */
export interface PickerItem {
  /** What choosing it passes on (a mode id, a session id, ...). */
  readonly value: string;
  /** What is shown. */
  readonly label: string;
  /** Shown dimmed after the label, on the same line (cut to one line). */
  readonly detail?: string;
}

/** What a picker offers. */
export interface PickerSpec {
  /** The line above the list. */
  readonly title: string;
  readonly items: readonly PickerItem[];
  /** The index of the current value (marked, and highlighted first); -1 for none. */
  readonly current: number;
}

/** Props of {@link OptionPicker}. */
export interface OptionPickerProps extends PickerSpec {
  /** A value was chosen (Enter on it, or its number). */
  readonly onChoose: (item: PickerItem) => void;
  /** Esc: leave without choosing. */
  readonly onLeave: () => void;
  /** The most items shown at once (a window around the highlight). Default 10. */
  readonly maxItems?: number;
}

/** The first item to show so that `index` is in a window of `size` among `count`. */
export function windowStart(index: number, count: number, size: number): number {
  if (count <= size) return 0;
  return Math.max(0, Math.min(index - Math.floor(size / 2), count - size));
}

/** See the module comment. */
export function OptionPicker({
  title,
  items,
  current,
  onChoose,
  onLeave,
  maxItems = 10,
}: OptionPickerProps): ReactNode {
  const { index, onKey } = useSelection(
    items.length,
    {
      onChoose: (i) => {
        const item = items[i];
        if (item !== undefined) onChoose(item);
      },
      onEscape: onLeave,
    },
    false,
    Math.max(0, current),
  );
  useKeys(onKey);
  const start = windowStart(index, items.length, maxItems);
  const shown = items.slice(start, start + maxItems);
  const digits = Math.min(9, items.length);
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1} marginTop={1}>
      <Text bold>{title}</Text>
      {items.length === 0 ? <Text dimColor>(nothing to choose from)</Text> : null}
      {start > 0 ? <Text dimColor>{`  … ${start} more above`}</Text> : null}
      {shown.map((item, k) => {
        const i = start + k;
        const highlighted = i === index;
        return (
          <Text key={`${i}:${item.value}`} color={highlighted ? "cyan" : undefined} wrap="truncate">
            {highlighted ? "❯ " : "  "}
            {i < 9 ? `${i + 1}. ` : "   "}
            {item.label}
            {i === current ? " ✓" : ""}
            {item.detail === undefined || item.detail === "" ? null : (
              <Text dimColor>{`  ${oneLine(item.detail)}`}</Text>
            )}
          </Text>
        );
      })}
      {start + maxItems < items.length ? (
        <Text dimColor>{`  … ${items.length - start - maxItems} more below`}</Text>
      ) : null}
      <Text dimColor>
        {[
          "↑↓ move",
          "Enter choose",
          ...(digits > 1 ? [`1-${digits} pick`] : digits === 1 ? ["1 pick"] : []),
          "Esc leave",
        ].join(" · ")}
      </Text>
    </Box>
  );
}
