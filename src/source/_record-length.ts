/**
 * Why a record with `count` fields does not fit the header, naming columns as a user counts them
 * (from 1) with the header's names: `2 fields, but the header has 3 columns: column 3 ("email") is
 * missing`. csv-parse says `Invalid Record Length: expect 3, got 2`, which leaves the user to count.
 */
export function recordLengthMessage(header: readonly string[], count: number): string {
  const width = header.length;
  const named = (i: number) => `${i + 1} (${JSON.stringify(header[i])})`;
  const start = `${count} ${count === 1 ? 'field' : 'fields'}, but the header has ${width} ${width === 1 ? 'column' : 'columns'}`;
  if (count < width) {
    const missing =
      count + 1 === width
        ? `column ${named(count)} is missing`
        : `columns ${named(count)} to ${named(width - 1)} are missing`;
    return `${start}: ${missing}`;
  }
  const extra = count === width + 1 ? `field ${width + 1} is` : `fields ${width + 1} to ${count} are`;
  return `${start}: ${extra} beyond the last column, ${named(width - 1)} (a delimiter inside a value that is not quoted?)`;
}
