export { loadMapping } from '../../src/config/load-mapping.js';
