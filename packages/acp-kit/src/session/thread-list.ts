/**
 * {@link ThreadList}: the persistent list a session's thread is kept in, so that adding or
 * replacing one item costs about the same in a thread of 10 items or of 100,000.
 *
 * A 32-way tree of fixed-size leaves with the last leaf (the tail) held apart: appending
 * copies the tail (at most 32 entries), now and then moves a full tail into the tree
 * (copying one path); replacing an item copies the path to it (about log32 n nodes of 32).
 * Nothing is ever changed in place, so every earlier list stays valid.
 *
 * @module
 */

const BITS = 5;
const WIDTH = 1 << BITS;
const MASK = WIDTH - 1;

/** A tree node: leaves hold items, the others hold nodes. */
type Node = readonly unknown[];

/** `node` wrapped in single-child nodes up to `level`. */
function newPath(level: number, node: Node): Node {
  return level === 0 ? node : [newPath(level - BITS, node)];
}

/** An immutable list with cheap `push` and `set`; see the module comment. */
export class ThreadList<T> {
  private constructor(
    /** The number of items. */
    readonly length: number,
    private readonly shift: number,
    private readonly root: Node,
    private readonly tail: readonly T[],
  ) {}

  /** The empty list. */
  static empty<T>(): ThreadList<T> {
    return new ThreadList<T>(0, BITS, [], []);
  }

  /** A list of `items`, in order. */
  static from<T>(items: Iterable<T>): ThreadList<T> {
    let list = ThreadList.empty<T>();
    for (const item of items) list = list.push(item);
    return list;
  }

  /** Index of the first item held in the tail. */
  private tailOffset(): number {
    return this.length < WIDTH ? 0 : ((this.length - 1) >>> BITS) << BITS;
  }

  /** The leaf holding index `index` (which must be below the tail). */
  private leaf(index: number): readonly T[] {
    let node = this.root;
    for (let level = this.shift; level > 0; level -= BITS) {
      node = node[(index >>> level) & MASK] as Node;
    }
    return node as readonly T[];
  }

  /** The item at `index`, or `undefined` outside `0 <= index < length`. */
  get(index: number): T | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.length) return undefined;
    const offset = this.tailOffset();
    if (index >= offset) return this.tail[index - offset];
    return this.leaf(index)[index & MASK];
  }

  /** This list with `item` added at the end. */
  push(item: T): ThreadList<T> {
    const { length, shift, root, tail } = this;
    if (length - this.tailOffset() < WIDTH) {
      return new ThreadList(length + 1, shift, root, [...tail, item]);
    }
    // The tail is full: it moves into the tree, and a new tail starts.
    if (length >>> BITS > 1 << shift) {
      const grown = [root, newPath(shift, tail)];
      return new ThreadList(length + 1, shift + BITS, grown, [item]);
    }
    return new ThreadList(length + 1, shift, this.pushTail(shift, root, tail), [item]);
  }

  private pushTail(level: number, parent: Node, leaf: Node): Node {
    const copy = parent.slice();
    const at = ((this.length - 1) >>> level) & MASK;
    if (level === BITS) {
      copy[at] = leaf;
    } else {
      const child = parent[at] as Node | undefined;
      copy[at] =
        child === undefined
          ? newPath(level - BITS, leaf)
          : this.pushTail(level - BITS, child, leaf);
    }
    return copy;
  }

  /** This list with the item at `index` replaced (`index` must be below `length`). */
  set(index: number, item: T): ThreadList<T> {
    if (!Number.isInteger(index) || index < 0 || index >= this.length) {
      throw new RangeError(`index ${index} outside a list of ${this.length}`);
    }
    const offset = this.tailOffset();
    if (index >= offset) {
      const tail = this.tail.slice();
      tail[index - offset] = item;
      return new ThreadList(this.length, this.shift, this.root, tail);
    }
    const assoc = (level: number, node: Node): Node => {
      const copy = node.slice();
      if (level === 0) copy[index & MASK] = item;
      else {
        const at = (index >>> level) & MASK;
        copy[at] = assoc(level - BITS, node[at] as Node);
      }
      return copy;
    };
    return new ThreadList(this.length, this.shift, assoc(this.shift, this.root), this.tail);
  }

  /** The items from `start` (inclusive) to `end` (exclusive), clamped to the list, as an array. */
  slice(start = 0, end = this.length): T[] {
    const from = Math.max(0, Math.min(start, this.length));
    const to = Math.max(from, Math.min(end, this.length));
    const out: T[] = [];
    const offset = this.tailOffset();
    let i = from;
    while (i < to && i < offset) {
      const leaf = this.leaf(i);
      const stop = Math.min(to, offset, (i | MASK) + 1);
      for (; i < stop; i++) out.push(leaf[i & MASK] as T);
    }
    for (; i < to; i++) out.push(this.tail[i - offset] as T);
    return out;
  }
}
