/**
 * `@toolmark/server/postgres`: the PostgreSQL store (`pg`, an optional peer dependency; Node only), for
 * several server instances sharing one database.
 */

export { openPostgresStore, type PostgresStore, type PostgresStoreOptions } from './store/postgres.ts'
export { StoreUnavailableError } from './store/store.ts'
