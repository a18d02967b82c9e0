import { DOCKET_CTX_METADATA } from '../docket.tokens.js';

/** Mark the parameter that receives the `TaskContext`; it is not a task argument. */
export function Ctx(): ParameterDecorator {
  return (target, propertyKey, index) => {
    if (propertyKey === undefined) return;
    const method = (target as Record<string | symbol, unknown>)[propertyKey] as object;
    Reflect.defineMetadata(DOCKET_CTX_METADATA, index, method);
  };
}
