import { ExactIndex } from './exact-index.js';
import { HnswIndex } from './hnsw-index.js';
import { nearestIndexContract } from './nearest-index.contract.js';
import { TieredIndex } from './tiered-index.js';
import { VectorIndex } from './vector-index.js';

nearestIndexContract('ExactIndex', (d) => new ExactIndex(d), { approximate: false });
nearestIndexContract('VectorIndex (exact scan)', (d) => new VectorIndex(d, { ivfThreshold: Infinity }), {
  approximate: false,
});
// Probing every list makes the partition exact, so this checks its bookkeeping. With its default probe count it
// is built for clustered goals: on the uniform random vectors of the first case it finds 0.76 of the 10 best.
nearestIndexContract(
  'VectorIndex (IVF from 64 vectors, every list probed)',
  (d) => new VectorIndex(d, { ivfThreshold: 64, nProbe: 1_000 }),
  {
    approximate: false,
  },
);
// The graph holds its vectors in half precision by default: scores to 3 places (see HnswOptions.quantization).
nearestIndexContract('HnswIndex', (d) => new HnswIndex(d), { approximate: true, scoreDigits: 3 });
nearestIndexContract('HnswIndex (single precision)', (d) => new HnswIndex(d, { quantization: 'f32' }), {
  approximate: true,
});
nearestIndexContract('TieredIndex (graph from 100 vectors)', (d) => new TieredIndex(d, { annFrom: 100 }), {
  approximate: true,
  scoreDigits: 3,
});
nearestIndexContract('TieredIndex (default crossover)', (d) => new TieredIndex(d), {
  approximate: true,
  scoreDigits: 3,
});
