/** Types of the parts of `seek-bzip` that acp-kit uses (the package ships none). */
declare module "seek-bzip" {
  /** Decompresses a whole bzip2 stream. */
  export function decode(input: Uint8Array, output?: Uint8Array): Buffer;
}
