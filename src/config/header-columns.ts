/** A cell that column names never are and data rows often hold: an email address, a number, an ISO date. */
const DATA_LIKE = /^[^\s@]+@[^\s@]+\.[^\s@]+$|^[+-]?\d+(?:[.,]\d+)?$|^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+)?/;

/**
 * The end of a "no such column" message: the columns the header has or, when its first line
 * looks like a data row (a file exported without a header), that, without echoing its cells,
 * which would put a contact's data in the log.
 */
export function headerColumnsSentence(header: readonly string[]): string {
  if (header.some((h) => DATA_LIKE.test(h.trim())))
    return 'Its first line looks like a data row, not column names (a cell holds an email address, a number or a date): the file needs a header line naming its columns';
  return `Its columns are: ${header.map((h) => JSON.stringify(h)).join(', ')}`;
}
