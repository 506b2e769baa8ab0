// The pgpass package (the node-postgres project's reader of ~/.pgpass) ships no types.
declare module 'pgpass' {
  /** Calls back with the password of the first line of PGPASSFILE (else ~/.pgpass) that matches, or undefined. */
  function pgPass(
    connection: { host?: string; port?: number | string; database?: string; user?: string },
    callback: (password: string | undefined) => void,
  ): void;
  export = pgPass;
}
