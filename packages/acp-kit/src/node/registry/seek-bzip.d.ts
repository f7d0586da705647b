/** Types of the parts of `seek-bzip` that acp-kit uses (the package ships none). */
declare module "seek-bzip" {
  /** An input the decoder reads byte by byte (-1 at the end). */
  interface ByteInput {
    readByte(): number;
    read(buffer: Uint8Array, offset: number, length: number): number;
    eof(): boolean;
  }
  /** An output the decoder writes byte by byte. */
  interface ByteOutput {
    writeByte(byte: number): void;
  }
  /** The module's exports (CommonJS: `module.exports`). */
  const seekBzip: {
    /** Decompresses a bzip2 stream (`multistream`: every stream concatenated in it). */
    decode(input: ByteInput, output: ByteOutput, multistream?: boolean): void;
  };
  export default seekBzip;
}
