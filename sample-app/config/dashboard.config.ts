import { registerAs } from '@nestjs/config';
import { text } from './env.js';

/** Who may act on the dashboard at `/docket`. */
export interface DashboardConfig {
  /**
   * `DASHBOARD_PASSWORD`: when set, the dashboard's actions (cancel, retry, strike, restore, pause, resume)
   * are allowed to user `admin` with this password (HTTP basic auth); unset, the dashboard is
   * read-only.
   */
  password?: string;
}

export const dashboardConfig = registerAs('dashboard', (): DashboardConfig => ({
  password: text('DASHBOARD_PASSWORD'),
}));
