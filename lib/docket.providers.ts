import type { Provider } from '@nestjs/common';
import { DOCKET_RESOLVED_OPTIONS } from './docket.tokens.js';
import { DOCKET_MODULE_OPTIONS } from './docket.module-definition.js';
import { resolveOptions } from './config/resolve-options.js';
import type { DocketModuleOptions } from './config/docket-module-options.interface.js';

/** The options with defaults merged in and validated: a bad option fails the boot here. */
export const resolvedOptionsProvider: Provider = {
  provide: DOCKET_RESOLVED_OPTIONS,
  useFactory: (options: DocketModuleOptions & { isGlobal?: boolean }) => {
    const { isGlobal: _isGlobal, ...rest } = options ?? {};
    return resolveOptions(rest);
  },
  inject: [DOCKET_MODULE_OPTIONS],
};
