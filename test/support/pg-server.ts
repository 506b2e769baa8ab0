// The tests' PostgreSQL: a throwaway cluster on a free local port, started as a non-root user and deleted
// afterwards (the implementation is shared with the PostgreSQL benchmark, which runs from dist/).
export { findPgBin, startPgServer, type PgServer } from '../../src/bench/pg-server.js';
