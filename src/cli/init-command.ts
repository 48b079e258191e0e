import { resolve } from 'node:path';
import type { Argv } from 'yargs';
import { DEFAULTS } from '../defaults.js';
import { initMapping } from '../init/init-mapping.js';
import { defineCommand, type CliIo, type OptionsOf } from './command.js';
import { EXIT } from './exit-codes.js';
import { RESOURCE_NAMES, resourceNamed } from './resource-names.js';
import { wholeNumber } from './number-options.js';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function initOptions(y: Argv) {
  return y
    .positional('csv', { type: 'string', demandOption: true, describe: 'The CSV export to map' })
    .option('resource', {
      type: 'string',
      demandOption: true,
      choices: RESOURCE_NAMES,
      describe: 'Where the rows go: product, user (contacts), deal, event, product-event, webpush-campaign',
    })
    .option('out', { type: 'string', default: DEFAULTS.initOut, describe: 'The mapping file to write' })
    .option('sample', {
      type: 'number',
      default: DEFAULTS.initSample,
      coerce: wholeNumber('--sample', 1),
      describe: 'Rows read to guess types',
    })
    .option('force', { type: 'boolean', default: false, describe: 'Overwrite the mapping file if it exists' })
    .option('encoding', {
      type: 'string',
      describe: "The file's encoding, when detection guesses wrong (any iconv-lite name)",
    })
    .example(
      '$0 init export.csv --resource contacts --out mappings/contacts.yaml',
      'Draft a contacts mapping, then check it with validate',
    );
}

type InitArgs = OptionsOf<typeof initOptions>;

export const initCommand = defineCommand({
  command: 'init <csv>',
  describe:
    "Write a mapping for a CSV file: columns matched to the resource's fields, types guessed from a sample, each guess explained",
  builder: initOptions,
  run: async (args: InitArgs, io: CliIo) => {
    const resource = resourceNamed(args.resource);
    const out = resolve(io.cwd, args.out);
    const { draft, check, problem } = await initMapping({
      csv: resolve(io.cwd, args.csv),
      resource,
      out,
      sample: args.sample,
      force: args.force,
      encoding: args.encoding,
      cwd: io.cwd,
      signal: io.signal,
    });
    const undecided = [...draft.fields, ...draft.leftovers].filter(
      (f) => f.commentedOut && !draft.leftovers.includes(f),
    ).length;
    if (check === undefined) {
      io.stderr.write(
        `Wrote ${args.out}, but it does not load yet: ${problem}\n${undecided > 0 ? 'See the comments marked TO DECIDE in it.\n' : ''}`,
      );
      return EXIT.ROWS_NOT_OK;
    }
    if (check.interrupted === true) {
      io.stderr.write(
        `Wrote ${args.out} from the sample; interrupted after checking ${check.rows} row${check.rows === 1 ? '' : 's'} of the whole file. Next: engage-import validate ${args.out}\n`,
      );
      return io.signal.reason === 'SIGTERM' ? EXIT.SIGTERM : EXIT.SIGINT;
    }
    io.stderr.write(
      `Wrote ${args.out}: ${plural(draft.fields.filter((f) => !f.commentedOut).length, 'field')}, ${draft.leftovers.length} column${draft.leftovers.length === 1 ? '' : 's'} left as comments` +
        `${undecided > 0 ? `, ${undecided} field${undecided === 1 ? '' : 's'} to decide (marked TO DECIDE)` : ''}.\n` +
        `Whole file: ${check.rows} row${check.rows === 1 ? '' : 's'}, ${check.invalid === 0 ? 'all valid' : `${check.invalid} would fail (listed at the top of the mapping)`}. Next: engage-import validate ${args.out}\n`,
    );
    return EXIT.OK;
  },
});
