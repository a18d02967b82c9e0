/**
 * An attempt that started `maxRedeliveries + 1` times and never ended: each time its worker
 * died, was killed, or hung past `redeliveryTimeout`. It is dead-lettered, not started again.
 */
export class PoisonMessageError extends Error {
  override name = 'PoisonMessageError';
}
