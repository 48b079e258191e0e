/** The one rule for showing a path lives in text/display-path.ts. */
export { displayPath } from '../text/display-path.js';
