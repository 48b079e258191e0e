export { parseValue } from '../../src/mapping/parse-value.js';
