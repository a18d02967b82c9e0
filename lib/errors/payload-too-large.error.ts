/** Serialized arguments or result larger than `maxPayloadBytes`. */
export class PayloadTooLargeError extends Error {
  override name = 'PayloadTooLargeError';
}
