/** A task name or method that no `@DocketTask` declares. */
export class UnknownTaskError extends Error {
  override name = 'UnknownTaskError';
}
