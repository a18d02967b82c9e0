export { renderPage } from './page.js';
export { DASHBOARD_SCRIPT, DASHBOARD_STYLES } from './assets.generated.js';
