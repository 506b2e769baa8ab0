// The layers of src/, checked on every `npm test` (npm run check:deps). Lower layers never import higher ones:
//   support, errors  <  vector  <  domain  <  back ends (store, capture, skill-files, config, and the model
//   back ends: model-clients  <  llm, embedders  <  backends)  <  pipeline, distillers, instrument  <  app
//   <  surfaces, doctor, eval, entry points
// The rule names say what a violation means; README "Architecture" says where each kind of change goes.
const layer = (...folders) => `^src/(${folders.join('|')})/`;
// Tests may import across layers (a store test starts a server, a pipeline test opens a memory).
const TESTS = '\\.(test|contract|case)\\.ts$';
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', comment: 'Modules must not import each other in a circle.', from: {}, to: { circular: true } },
    {
      name: 'foundation-stands-alone',
      severity: 'error',
      comment: 'support/ and errors/ are the ground floor: they import nothing else from src/.',
      from: { path: layer('support', 'errors'), pathNot: TESTS },
      to: { path: '^src/', pathNot: layer('support', 'errors') },
    },
    {
      name: 'vector-is-a-library',
      severity: 'error',
      comment: 'vector/ (nearest-neighbour indexes) knows nothing about skills, stores or models.',
      from: { path: layer('vector'), pathNot: TESTS },
      to: { path: '^src/', pathNot: layer('vector', 'support', 'errors') },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'domain/ is pure logic: no store, model, file system, network or surface.',
      from: { path: layer('domain'), pathNot: TESTS },
      to: {
        path: ['^src/', '^(node:)?(fs|fs/promises|net|http|https|child_process|worker_threads)$', '^(better-sqlite3|pg|usearch|hono)'],
        pathNot: layer('domain', 'vector', 'support', 'errors'),
      },
    },
    {
      name: 'model-clients-are-shared',
      severity: 'error',
      comment:
        'model-clients/ (the OpenAI-compatible HTTP client, the llama.cpp loader, model descriptors, optional packages) serve chat models and embedders alike: they import neither, nor the back-end selection.',
      from: { path: layer('model-clients'), pathNot: TESTS },
      to: { path: '^src/', pathNot: layer('model-clients', 'support', 'errors') },
    },
    {
      name: 'model-back-ends-point-one-way',
      severity: 'error',
      comment:
        'Chat models (llm/) and embedders (embedders/) build on model-clients/, never on each other or on backends/, the one place that picks them from the configuration.',
      from: { path: '^src/(llm|embedders)/', pathNot: TESTS },
      to: { path: '^src/(llm|embedders|backends)/', pathNot: '^src/$1/' },
    },
    {
      name: 'back-ends-stay-below-the-pipeline',
      severity: 'error',
      comment: 'Stores, model clients, capture adapters and config do not reach up into the pipeline, the app or a surface.',
      from: { path: layer('store', 'model-clients', 'llm', 'embedders', 'backends', 'capture', 'skill-files', 'config'), pathNot: TESTS },
      to: { path: [layer('pipeline', 'distillers', 'instrument', 'app', 'surfaces', 'doctor', 'eval', 'bench'), '^src/(index|sqlite|postgres|builtins)\\.ts$'] },
    },
    {
      name: 'pipeline-below-the-app',
      severity: 'error',
      comment: 'The synthesis pipeline and distillers are driven by the app layer, never the other way round.',
      from: { path: layer('pipeline', 'distillers', 'instrument'), pathNot: TESTS },
      to: { path: [layer('app', 'surfaces', 'doctor', 'eval', 'bench'), '^src/(index|sqlite|postgres|builtins)\\.ts$'] },
    },
    {
      name: 'only-surfaces-import-surfaces',
      severity: 'error',
      comment: 'CLI, HTTP, MCP and the web dashboard are the outer edge: nothing inside imports them.',
      from: { path: '^src/', pathNot: [layer('surfaces', 'bench'), TESTS] },
      to: { path: layer('surfaces') },
    },
    {
      name: 'surfaces-go-through-the-app',
      severity: 'error',
      comment: 'Surfaces talk to the Memory facade, never to a store directly.',
      from: { path: layer('surfaces'), pathNot: TESTS },
      to: { path: layer('store'), dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'stores-are-opened-by-the-app',
      severity: 'error',
      comment: 'Only the composition root (app/) opens a store back end; everything else works on the Store interfaces.',
      from: { path: '^src/', pathNot: [layer('store', 'app'), '^src/(sqlite|postgres)\\.ts$', TESTS] },
      to: { path: ['^src/store/(sqlite|postgres)/', '^src/store/open-store\\.ts$'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'src-tests-use-only-src',
      severity: 'error',
      comment:
        'A test beside the code imports only from src/ (CONTRIBUTING.md); one that needs test/support or test/fixtures lives in test/.',
      from: { path: TESTS },
      to: { path: '^test/' },
    },
    {
      name: 'no-test-code-in-src',
      severity: 'error',
      comment: 'Published code never imports test helpers or benchmarks.',
      from: { path: '^src/', pathNot: TESTS },
      to: { path: ['^test/', '^bench/'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^dist/', '^test/fixtures/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.test.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
