import pg from 'pg';
import pgPass from 'pgpass';

type ConnectCallback = (err: Error | null, client?: pg.Client) => void;

/**
 * The pg client every connection to a PostgreSQL memory uses.
 *
 * It looks the password up in the password file itself (PGPASSFILE, else ~/.pgpass, as libpq does: the first
 * matching `host:port:database:user:password` line, `*` for any; a file others may read is ignored, with a
 * warning) when neither the URL nor PGPASSWORD gives one. The driver's own look-up prints a deprecation warning on
 * every run (pg 8) and is gone in pg 9; this one asks the same package directly.
 *
 * A connection that fails while logging in is closed at once. The driver leaves the socket open when the failure
 * is its own (no password to answer the server's SCRAM challenge): the server waits for an answer until its
 * authentication_timeout (a minute), and so did a CLI run that had already said why it failed.
 */
export class PgClient extends pg.Client {
  constructor(config?: pg.ClientConfig) {
    super(config);
    if (this.password === null || this.password === undefined) {
      const connection = { host: this.host, port: this.port, database: this.database, user: this.user };
      // Asked only when the server wants a password; undefined: none, as when no line matches.
      const fromFile = () => new Promise<string>((resolve) => pgPass(connection, (p) => resolve(p as string)));
      (this as { password?: unknown }).password = fromFile;
    }
  }

  override connect(): Promise<pg.Client>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.Client> | undefined {
    const closeOnFailure = (err: Error | null) => {
      if (err) this.end().catch(() => undefined);
    };
    if (!callback)
      return super.connect().catch((e: Error) => {
        closeOnFailure(e);
        throw e;
      });
    super.connect(((err: Error | null, client?: pg.Client) => {
      closeOnFailure(err);
      callback(err, client);
    }) as Parameters<pg.Client['connect']>[0] & object);
    return undefined;
  }
}
