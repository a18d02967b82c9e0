import { DocketConfigurationError } from '../public-api.js';
import { DASHBOARD_DEFAULTS } from './dashboard.constants.js';
import type {
  DocketDashboardOptions,
  ResolvedDashboardOptions,
} from './dashboard-options.interface.js';

function positive(options: DocketDashboardOptions, name: keyof DocketDashboardOptions): void {
  const value = options[name];
  if (value !== undefined && (typeof value !== 'number' || !(value > 0))) {
    throw new DocketConfigurationError(
      `DocketDashboardModule: "${name}" must be a positive number of milliseconds, not ${String(value)}`,
    );
  }
}

/** Merge the defaults in and check the options; throws at boot with the fix. */
export function resolveDashboardOptions(
  options: DocketDashboardOptions = {},
): ResolvedDashboardOptions {
  for (const name of ['refreshInterval', 'sampleInterval', 'history'] as const) {
    positive(options, name);
  }
  const keep = options.keepFinished;
  if (keep !== undefined && !(Number.isInteger(keep) && keep >= 0 && keep <= 10_000)) {
    throw new DocketConfigurationError(
      `DocketDashboardModule: "keepFinished" must be a whole number from 0 to 10000, not ${String(keep)}`,
    );
  }
  const path = options.path ?? DASHBOARD_DEFAULTS.path;
  if (typeof path !== 'string' || /[?#*:()\s]/.test(path)) {
    throw new DocketConfigurationError(
      `DocketDashboardModule: path ${JSON.stringify(path)} must be a plain URL path such as '/docket'`,
    );
  }
  return {
    ...DASHBOARD_DEFAULTS,
    ...Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)),
    path: path.replace(/^\/+|\/+$/g, ''),
  } as ResolvedDashboardOptions;
}
