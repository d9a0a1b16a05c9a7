/**
 * `@toolmark/server/sqlite`: the SQLite store (better-sqlite3, an optional peer dependency; Node only).
 */

export { openSqliteStore } from './store/sqlite.ts'
