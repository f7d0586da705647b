/**
 * Recovers the `id` (and whether there is a `method`) of a JSON-RPC message that is too
 * large to keep, by scanning its text once as it streams past, in constant memory.
 *
 * @module
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MAX_KEY = 8;
const MAX_ID = 256;

/** What the scanner learnt about the envelope of a discarded message. */
export interface EnvelopeInfo {
  /** The top-level `id`, when one was found and is a valid id. */
  readonly id?: string | number | null;
  /** True when the top-level object has a `method` key (a request or notification). */
  readonly hasMethod: boolean;
  /** True when the top-level object has a `result` or `error` key (a response). */
  readonly hasOutcome: boolean;
}

/**
 * A resumable scanner over the code units of one JSON text (bytes or UTF-16 units: the
 * structural characters are ASCII either way).
 */
export class EnvelopeScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** At depth 1: the next string is a key. */
  private expectKey = false;
  /** Characters of the key being read, or undefined when not reading a key. */
  private key: string | undefined;
  private lastKey = "";
  /** Raw text of the top-level `id` value being captured, or undefined. */
  private idText: string | undefined;
  private idIsString = false;
  private idDone = false;
  private idRaw: string | undefined;
  private hasMethod = false;
  private hasOutcome = false;
  /** True while feeding raw UTF-8 bytes (non-ASCII bytes cannot be rebuilt into an id). */
  private byteMode = false;

  /** Feeds bytes. */
  feedBytes(bytes: Uint8Array): void {
    this.byteMode = true;
    for (const byte of bytes) this.step(byte);
  }

  /** Feeds text. */
  feedText(text: string): void {
    this.byteMode = false;
    for (let i = 0; i < text.length; i++) this.step(text.charCodeAt(i));
  }

  /** The envelope found so far. */
  result(): EnvelopeInfo {
    this.finishId();
    let id: string | number | null | undefined;
    // An id we cannot rebuild exactly is reported as absent rather than guessed.
    if (this.idRaw !== undefined) {
      if (this.idIsString) id = unescapeJsonString(this.idRaw);
      else if (this.idRaw === "null") id = null;
      else if (/^-?\d+$/.test(this.idRaw)) {
        const n = Number(this.idRaw);
        // Past 2^53 the number JSON.parse would give is not the id that was sent.
        if (Number.isSafeInteger(n)) id = n;
      }
    }
    return id === undefined
      ? { hasMethod: this.hasMethod, hasOutcome: this.hasOutcome }
      : { id, hasMethod: this.hasMethod, hasOutcome: this.hasOutcome };
  }

  private step(c: number): void {
    if (this.inString) {
      if (this.escaped) {
        this.escaped = false;
        this.append(c);
      } else if (c === BACKSLASH) {
        this.escaped = true;
        this.append(c);
      } else if (c === QUOTE) {
        this.inString = false;
        if (this.key !== undefined) {
          this.lastKey = this.key;
          this.key = undefined;
        } else if (this.idText !== undefined && this.idIsString) {
          this.finishId();
        }
      } else {
        this.append(c);
      }
      return;
    }
    switch (c) {
      case QUOTE:
        this.inString = true;
        if (this.depth === 1 && this.expectKey) {
          this.key = "";
          this.expectKey = false;
        } else if (this.depth === 1 && this.idText === "" && !this.idDone) {
          this.idIsString = true;
        }
        return;
      case OPEN_BRACE:
      case OPEN_BRACKET:
        if (this.depth === 0 && c === OPEN_BRACE) this.expectKey = true;
        if (this.depth === 1 && this.idText !== undefined) this.abandonId();
        this.depth++;
        return;
      case CLOSE_BRACE:
      case CLOSE_BRACKET:
        if (this.depth === 1) this.finishId();
        this.depth--;
        return;
      case COLON:
        if (this.depth === 1) this.onKey(this.lastKey);
        return;
      case COMMA:
        if (this.depth === 1) {
          this.finishId();
          this.expectKey = true;
        }
        return;
      default:
        // Literal characters of a number / null id at the top level.
        if (this.depth === 1 && this.idText !== undefined && !this.idIsString && c > 0x20) {
          this.append(c);
        }
    }
  }

  private onKey(key: string): void {
    if (key === "id" && !this.idDone) {
      this.idText = "";
      this.idIsString = false;
    } else if (key === "method") this.hasMethod = true;
    else if (key === "result" || key === "error") this.hasOutcome = true;
  }

  private append(c: number): void {
    if (this.key !== undefined) {
      if (this.key.length < MAX_KEY) this.key += String.fromCharCode(c);
      else this.key = "\u0000"; // too long to be a key we care about
    } else if (this.idText !== undefined && !this.idDone) {
      if (this.idText.length < MAX_ID && !(this.byteMode && c >= 0x80)) {
        this.idText += String.fromCharCode(c);
      } else this.abandonId();
    }
  }

  private finishId(): void {
    if (this.idText !== undefined && !this.idDone) {
      this.idDone = true;
      this.idRaw = this.idText;
      this.idText = undefined;
    }
  }

  private abandonId(): void {
    this.idText = undefined;
    this.idDone = true;
    this.idRaw = undefined;
  }
}

function unescapeJsonString(raw: string): string | undefined {
  if (!raw.includes("\\")) return raw;
  try {
    const value: unknown = JSON.parse(`"${raw}"`);
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}
