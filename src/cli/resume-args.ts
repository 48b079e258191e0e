import { DEFAULTS } from '../defaults.js';
import type { RunIdentity } from '../ledger/index.js';
import type { LiveArgs } from './live-options.js';
import type { RunArgs } from './common-options.js';

type PayloadArgs = Pick<
  RunArgs & LiveArgs,
  'input' | 'limit' | 'deal-update-method' | 'bulk' | 'bulk-min-rows' | 'bulk-chunk-rows'
>;

/**
 * A resume goes on with the payload options its run started with (`--input`, `--limit`,
 * `--deal-update-method`, the bulk options) where the command line leaves them out or at their
 * default: `engage-import resume <run>`, as the stopped run prints it, continues a run started
 * with `--bulk always` or another export. A value the command line does give, and that differs,
 * is kept, and the resume is refused saying what changed (a resume never silently changes what
 * the run sends).
 */
export function withRecordedPayloadOptions<A extends PayloadArgs>(args: A, recorded: RunIdentity['options']): A {
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const whole = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : undefined);
  const pick = <T>(given: T, isDefault: boolean, stored: T | undefined): T =>
    isDefault && stored !== undefined ? stored : given;
  const method = text(recorded['deal-update-method']);
  const bulk = text(recorded['bulk']);
  return {
    ...args,
    input: pick(args.input, args.input === undefined, text(recorded['input'])),
    limit: pick(args.limit, args.limit === undefined, whole(recorded['limit'])),
    'deal-update-method': pick(
      args['deal-update-method'],
      args['deal-update-method'] === DEFAULTS.dealUpdateMethod,
      method === 'PATCH' || method === 'PUT' ? method : undefined,
    ),
    bulk: pick(
      args.bulk,
      args.bulk === DEFAULTS.bulk,
      bulk === 'auto' || bulk === 'always' || bulk === 'never' ? bulk : undefined,
    ),
    'bulk-min-rows': pick(
      args['bulk-min-rows'],
      args['bulk-min-rows'] === DEFAULTS.bulkMinRows,
      whole(recorded['bulk-min-rows']),
    ),
    'bulk-chunk-rows': pick(
      args['bulk-chunk-rows'],
      args['bulk-chunk-rows'] === DEFAULTS.bulkChunkRows,
      whole(recorded['bulk-chunk-rows']),
    ),
  };
}
