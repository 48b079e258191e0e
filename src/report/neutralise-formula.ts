/**
 * Spreadsheet formula injection (OWASP "CSV injection"): a cell that starts with one of these is
 * run as a formula by Excel or LibreOffice. Prefixing `'` makes it text; the CSV stays RFC 4180
 * because quoting is left to csv-stringify.
 */
const FORMULA_START = new Set(['=', '+', '-', '@', '\t', '\r', '\n']);

export function neutraliseFormula(cell: string): string {
  return cell.length > 0 && FORMULA_START.has(cell[0]!) ? `'${cell}` : cell;
}
