import { DOCKET_EVENT_TYPES, type DocketEventType } from './docket-event.interface.js';

// Not exported by the package: the check behind `@OnDocketEvent` and `DocketClient.events()`.

/** `types` checked to be an array of event types; a TypeError names the call (`what`) and the bad one. */
export function checkEventTypes(types: unknown, what: string): DocketEventType[] {
  if (!Array.isArray(types)) {
    throw new TypeError(`${what}: types is an array of event types, not ${typeof types}`);
  }
  for (const type of types) {
    if (!DOCKET_EVENT_TYPES.includes(type as DocketEventType)) {
      throw new TypeError(
        `${what}: "${String(type)}" is not an event type (one of ${DOCKET_EVENT_TYPES.join(', ')})`,
      );
    }
  }
  return types as DocketEventType[];
}
