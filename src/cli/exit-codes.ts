/** The exit codes live beside the error codes that map to them, in one table. */
export { EXIT } from '../errors.js';
