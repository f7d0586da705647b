/** Types of the parts of `seek-bzip` that acp-kit uses (the package ships none). */
declare module "seek-bzip" {
  /** The module's exports (CommonJS: `module.exports`). */
  const seekBzip: {
    /** Decompresses a whole bzip2 stream. */
    decode(input: Uint8Array, output?: Uint8Array): Buffer;
  };
  export default seekBzip;
}
