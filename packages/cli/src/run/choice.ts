/**
 * The old name of `selection.ts`, kept only until `question-view.tsx` imports
 * `useSelection` from there (it is being edited elsewhere).
 *
 * @module
 */
export {
  /** @deprecated Use `useSelection` from `selection.ts`. */
  useSelection as useChoice,
} from "./selection.js";
