/**
 * The dependency order of ARCHITECTURE.md, checked by `npm test` (`depcruise src`).
 *
 * LAYERS lists the parts of src/ from the bottom up: a folder (or top-level file) imports only
 * from the ones listed before it. Each layer gets one rule, `layer-<name>`, so a wrong-way import
 * fails with the name of the folder whose place it breaks. Adding a folder: put it in LAYERS at its
 * place and say why in ARCHITECTURE.md.
 */

/** Bottom first. A name without `.ts` is a folder under src/. */
const LAYERS = [
  'errors.ts', // one error family: everything may throw these
  'defaults.ts', // every default of the tool's options, one table: the CLI, transport and pipeline read it
  'text', // how values and paths are shown to people: display paths, "did you mean" suggestions
  'time', // the calendar and ISO 8601 grammar every date check uses: year bounds, days of a month
  'log', // the structured logger: no knowledge of the run
  'mapping', // pure row → payload, and the field vocabulary the mapping loader checks with it
  'config', // mapping and job files: loads them and checks their fields with mapping/
  'source', // CSV reading
  'resources', // one file per API resource: local checks, endpoints, idempotency
  'report', // report, rejects and payloads writers, summary
  'transport', // HTTP, rate limit, retries
  'bulk', // bulk CSV import pieces: chunk files, reading an import's report, bisection (pure but for files)
  'ledger', // the SQLite run ledger
  'sync', // incremental sync state, kept beside the ledger
  'sort', // product events in time order: the order check and an external sort (imports nothing of the run)
  'pipeline', // plan, dry run, live import
  'init', // mapping scaffold from a CSV header
  'notify', // end-of-run alerts
  'sandbox', // the local API sandbox (also kept apart from the client: rule sandbox-apart)
  'cli', // yargs commands, main(argv, io)
];

const pathOf = (layer) => (layer.endsWith('.ts') ? `^src/${layer.replace('.', '\\.')}$` : `^src/${layer}/`);

const layerRules = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `layer-${layer.replace('.ts', '')}`,
  severity: 'error',
  comment: `src/${layer} sits below ${LAYERS.slice(i + 1).join(', ')} (ARCHITECTURE.md): it must not import them`,
  from: { path: pathOf(layer) },
  to: { path: LAYERS.slice(i + 1).map(pathOf) },
}));

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'sandbox-apart',
      severity: 'error',
      comment:
        'The sandbox plays the service: it keeps its own checks apart from the client so a client bug cannot hide behind a shared one. It imports only src/errors.ts.',
      from: { path: '^src/sandbox/' },
      to: { path: '^src/', pathNot: ['^src/sandbox/', '^src/errors\\.ts$'] },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'A cycle (type-only imports included) hides which file owns a concept: move the shared part into its own file.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing.',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-non-package-json',
      severity: 'error',
      comment: 'A package used by src/ but missing from package.json: it works here only by accident.',
      from: {},
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'not-to-dev-dep',
      severity: 'error',
      comment: 'src/ ships: it must not need a devDependency at run time (type-only imports are fine).',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'], pathNot: ['node_modules/@types/'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a type cycle is still a cycle for the reader.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
