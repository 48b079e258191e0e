/**
 * Where a field goes in the payload: its target split on dots, numeric segments (after the first)
 * being array indexes. `data.plan` → `{ data: { plan } }`; `messages.0.title` →
 * `{ messages: [{ title }] }`.
 */
export interface PayloadPath {
  /** Property names, and array indexes for numeric segments. */
  readonly keys: readonly (string | number)[];
}

// Digits: an index, not a key. `01` stays a key, as JSON arrays have no such index.
const INDEX = /^(?:0|[1-9]\d*)$/;
/** Highest array index: a mapping lists its elements one by one, and compacting stays cheap. */
const MAX_INDEX = 999;

type Kind = 'value' | 'object' | 'array';

/**
 * Paths of all fields, checked together: one place cannot hold a value and an object
 * (`data`, `data.plan`), nor an array and an object (`messages.0.title`, `messages.first`).
 * @returns the paths in field order, and the problems found (messages name both targets).
 */
export function compilePaths(targets: readonly (readonly string[])[]): { paths: PayloadPath[]; problems: string[] } {
  const kinds = new Map<string, { kind: Kind; target: string }>();
  const problems: string[] = [];
  const paths = targets.map((segments) => {
    const target = segments.join('.');
    const keys = segments.map((s, i) => (i > 0 && INDEX.test(s) ? Number(s) : s));
    const tooLarge = keys.find((k) => typeof k === 'number' && k > MAX_INDEX);
    if (tooLarge !== undefined)
      problems.push(`${JSON.stringify(target)}: array index ${tooLarge} is too large (at most ${MAX_INDEX})`);
    for (let i = 0; i < keys.length; i++) {
      const at = segments.slice(0, i + 1).join('.');
      const kind: Kind = i === keys.length - 1 ? 'value' : typeof keys[i + 1] === 'number' ? 'array' : 'object';
      const seen = kinds.get(at);
      if (seen === undefined) kinds.set(at, { kind, target });
      else if (seen.kind !== kind || kind === 'value') {
        problems.push(
          `${JSON.stringify(target)} and ${JSON.stringify(seen.target)} both set ${JSON.stringify(at)}, as ${describe(kind)} and ${describe(seen.kind)}`,
        );
      }
    }
    return { keys };
  });
  return { paths, problems };
}

function describe(kind: Kind): string {
  return kind === 'value' ? 'a value' : `an ${kind}`;
}

type Container = Record<string | number, unknown>;

function own(node: Container, key: string | number): unknown {
  // `__proto__` read as `node.__proto__` is Object.prototype: never write through it.
  return key === '__proto__' ? (Object.hasOwn(node, key) ? node[key] : undefined) : node[key];
}

function put(node: Container, key: string | number, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true });
  else node[key] = value;
}

/** An array `setAt` created, and where: the target's segments up to it (`messages`, `grid.1`). */
export interface CreatedArray {
  readonly array: unknown[];
  readonly path: string;
}

/**
 * Set `value` at `path` in `root`, creating objects and arrays on the way. Arrays created are
 * pushed to `created` (when given) so that `compactArrays` can close the holes left by omitted
 * elements.
 */
export function setAt(
  root: Record<string, unknown>,
  path: PayloadPath,
  value: unknown,
  created?: CreatedArray[],
): void {
  const keys = path.keys;
  let node = root as Container;
  const last = keys.length - 1;
  for (let i = 0; i < last; i++) {
    const key = keys[i] as string | number;
    let next = own(node, key) as Container | undefined;
    if (next === undefined) {
      if (typeof keys[i + 1] === 'number') {
        const array: unknown[] = [];
        created?.push({ array, path: keys.slice(0, i + 1).join('.') });
        next = array as unknown as Container;
      } else {
        next = {};
      }
      put(node, key, next);
    }
    node = next;
  }
  put(node, keys[last] as string | number, value);
}

/**
 * Close the holes of arrays: when every field of `messages.0` is left out but `messages.1` is
 * set, the payload gets one message, not `[null, {…}]`, which the API would reject. The indexes
 * of a mapping order the elements; they are not positions the API knows about.
 * @returns for each array whose elements moved, its path and the mapping's index of each element
 *   kept (`messages` → [1]: element 0 of the payload is `messages.1` of the mapping).
 */
export function compactArrays(arrays: readonly CreatedArray[]): Map<string, number[]> {
  const moved = new Map<string, number[]>();
  for (const { array, path } of arrays) {
    const kept: number[] = [];
    for (let read = 0; read < array.length; read++) {
      if (read in array) array[kept.push(read) - 1] = array[read];
    }
    if (kept.length !== array.length) moved.set(path, kept);
    array.length = kept.length;
  }
  return moved;
}

/**
 * The mapping's target for a field path of the compacted payload: `messages.0.title` →
 * `messages.1.title` when element 0 came from `messages.1`. Outer arrays first, since the paths
 * of inner arrays were recorded with the mapping's indexes.
 */
export function targetOf(field: string, moved: ReadonlyMap<string, readonly number[]>): string {
  if (moved.size === 0) return field;
  const segments = field.split('.');
  for (let i = 1; i < segments.length; i++) {
    const kept = moved.get(segments.slice(0, i).join('.'));
    const index = Number(segments[i]);
    if (kept !== undefined && Number.isInteger(index) && kept[index] !== undefined) segments[i] = String(kept[index]);
  }
  return segments.join('.');
}
