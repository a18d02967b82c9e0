export { renderPage } from './page.js';
export { DASHBOARD_SCRIPT } from './script.js';
export { DASHBOARD_STYLES } from './styles.js';
