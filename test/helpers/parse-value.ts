export { parseValue, type ValueResult } from '../../src/mapping/parse-value.js';
