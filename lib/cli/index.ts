export { workerOptionsFromEnv, WORKER_OPTIONS, envName } from './worker-env.js';
