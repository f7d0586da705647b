/**
 * Progress of downloads and installs, reported to an optional callback.
 *
 * @module
 */

/** One step of fetching the registry or installing an agent. */
export type RegistryProgress =
  | { readonly kind: "fetch"; readonly url: string }
  | {
      readonly kind: "download";
      readonly agent: string;
      readonly url: string;
      /** Bytes received so far. */
      readonly received: number;
      /** The size announced by the server, when it gave one. */
      readonly total: number | undefined;
    }
  | { readonly kind: "extract"; readonly agent: string }
  | { readonly kind: "install"; readonly agent: string; readonly command: string }
  | { readonly kind: "done"; readonly agent: string; readonly dir: string };

/** Receives {@link RegistryProgress} events. */
export type RegistryProgressListener = (event: RegistryProgress) => void;
