/** An integer id taken from the path; anything else names no record, so the route answers 404 Not found. */
export function pathId(param: string | undefined): number | undefined {
  if (param === undefined || !/^\d{1,15}$/.test(param)) return undefined;
  return Number(param);
}
