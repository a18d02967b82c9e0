/** Token of the resolved `HealthConfig` (the environment's, with overrides applied). */
export const HEALTH_OPTIONS = Symbol('HEALTH_OPTIONS');
