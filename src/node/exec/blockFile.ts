/**
 * Block files as geth's `export` writes and `import` reads them (cmd/utils/cmd.go ExportChain,
 * ImportChain): RLP-encoded blocks, concatenated, gzip-compressed when the name ends with `.gz`
 * (on read gzip is also recognised by its magic bytes). Both directions stream: a reader holds one
 * chunk plus the block being assembled, a writer waits on the sink's backpressure.
 */
import { once } from "node:events";
import { closeSync, createReadStream, createWriteStream, openSync, readSync } from "node:fs";
import type { Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip, createGzip } from "node:zlib";

/**
 * Largest block accepted from a file. An OP block is bounded by its gas limit (a few MB of calldata
 * at most); 128 MiB stops a corrupt length prefix from asking for gigabytes before it fails.
 */
export const MAX_FILE_BLOCK_BYTES = 128 * 1024 * 1024;

/** Read size of the file stream: large enough that a block rarely spans chunks. */
const READ_CHUNK = 1 << 20;

/** A block file that does not parse: `index` counts blocks from 0, `offset` is its byte in the (decompressed) stream. */
export class BlockFileError extends Error {
  override readonly name = "BlockFileError";
  constructor(
    readonly index: number,
    readonly offset: number,
    readonly why: string,
  ) {
    super(`block ${index} at byte ${offset}: bad RLP: ${why}`);
  }
}

/** One block of a file: its RLP (a view into the read buffer), position and byte offset. */
export interface FileBlock {
  readonly rlp: Uint8Array;
  readonly index: number;
  readonly offset: number;
}

const GZIP_MAGIC0 = 0x1f;
const GZIP_MAGIC1 = 0x8b;

/** True when the file starts with the gzip magic bytes (a block file starts with 0xf8..0xff). */
export function isGzipFile(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const b = new Uint8Array(2);
    const n = readSync(fd, b, 0, 2, 0);
    return n === 2 && b[0] === GZIP_MAGIC0 && b[1] === GZIP_MAGIC1;
  } finally {
    closeSync(fd);
  }
}

/** A byte stream of the file, decompressed when it is gzip (by name or by magic). */
export function openByteStream(path: string): Readable {
  const file = createReadStream(path, { highWaterMark: READ_CHUNK });
  if (!path.endsWith(".gz") && !isGzipFile(path)) return file;
  const gunzip = createGunzip({ chunkSize: READ_CHUNK });
  // Errors of either stage reach the reader through the gunzip stream.
  pipeline(file, gunzip).catch(() => undefined);
  return gunzip;
}

/**
 * Length of the RLP list starting at `p` (prefix included), or -1 when the prefix is not all in
 * `b` yet, or the reason a non-list, a non-canonical or an oversized prefix is refused.
 */
function frameLength(b: Uint8Array, p: number): number | string {
  const avail = b.length - p;
  if (avail < 1) return -1;
  const b0 = b[p];
  if (b0 < 0xc0) return "not an RLP list";
  if (b0 <= 0xf7) return 1 + (b0 - 0xc0);
  const ll = b0 - 0xf7;
  if (avail < 1 + ll) return -1;
  if (b[p + 1] === 0) return "non-canonical size prefix (leading zero)";
  let len = 0;
  for (let i = 0; i < ll; i++) len = len * 256 + b[p + 1 + i];
  if (len < 56) return "non-canonical size prefix (short list in long form)";
  if (len > MAX_FILE_BLOCK_BYTES) return `block of ${len} bytes is over the ${MAX_FILE_BLOCK_BYTES}-byte limit`;
  return 1 + ll + len;
}

/**
 * The blocks of `path` in order, streamed. Framing errors and a file that ends inside a block
 * throw BlockFileError after every whole block before them was yielded; the block's own content
 * is checked by whoever imports it.
 */
export async function* readBlockFile(path: string): AsyncGenerator<FileBlock> {
  let buf: Uint8Array = new Uint8Array(0);
  let base = 0;
  let index = 0;
  for await (const chunk of openByteStream(path) as AsyncIterable<Buffer>) {
    const c = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length);
    if (buf.length === 0) {
      buf = c;
    } else {
      const joined = new Uint8Array(buf.length + c.length);
      joined.set(buf, 0);
      joined.set(c, buf.length);
      buf = joined;
    }
    let p = 0;
    for (;;) {
      const n = frameLength(buf, p);
      if (typeof n === "string") throw new BlockFileError(index, base + p, n);
      if (n < 0 || p + n > buf.length) break;
      yield { rlp: buf.subarray(p, p + n), index, offset: base + p };
      index++;
      p += n;
    }
    buf = buf.subarray(p);
    base += p;
  }
  if (buf.length > 0) {
    const n = frameLength(buf, 0);
    const want = typeof n === "number" && n > 0 ? ` of ${n}` : "";
    throw new BlockFileError(index, base, `truncated: the file ends ${buf.length}${want} bytes into the block`);
  }
}

/** Writes a block file (gzip when the name ends with `.gz`, as geth), replacing any file there. */
export class BlockFileWriter {
  private readonly head: Writable;
  private readonly done: Promise<void>;
  private failure: Error | null = null;
  bytes = 0;

  constructor(readonly path: string) {
    const file = createWriteStream(path, { flags: "w" });
    if (path.endsWith(".gz")) {
      const gzip = createGzip();
      this.head = gzip;
      this.done = pipeline(gzip, file);
    } else {
      this.head = file;
      this.done = once(file, "finish").then(() => undefined);
      file.on("error", (e) => {
        this.failure = e;
      });
    }
    this.done.catch((e: Error) => {
      this.failure = e;
    });
  }

  /** Appends `b`; resolves once the sink can take more. */
  async write(b: Uint8Array): Promise<void> {
    if (this.failure !== null) throw this.failure;
    this.bytes += b.length;
    if (!this.head.write(b)) await Promise.race([once(this.head, "drain"), this.done]);
    if (this.failure !== null) throw this.failure;
  }

  /** Flushes and closes the file. */
  async close(): Promise<void> {
    this.head.end();
    await this.done;
    if (this.failure !== null) throw this.failure;
  }

  /** Closes without waiting for a flush (after a failure). */
  destroy(): void {
    this.head.destroy();
  }
}
