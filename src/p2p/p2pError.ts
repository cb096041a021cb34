/** The P2P stack's error: bad options, a host or discovery that cannot start, a refused dial or signature. */
export class P2pError extends Error {
  override readonly name = "P2pError";
}
