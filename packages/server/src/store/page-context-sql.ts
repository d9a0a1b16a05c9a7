import type Database from 'better-sqlite3'
import type { PageContextRecord, Store } from './store.ts'

/** A page context's row in SQLite. */
interface PageContextRow {
  client_id: string
  user_id: string
  conversation_id: string
  rev: number
  entries: string
  updated_at: number
}

/**
 * The SQLite store's page contexts (the `context` extension): one row per page load, replaced only by a context
 * of the same or a higher `rev`.
 */
export function sqlitePageContexts(
  db: Database.Database,
): Required<Pick<Store, 'putPageContext' | 'getPageContext'>> {
  const put = db.prepare<[PageContextRow]>(
    `INSERT INTO page_contexts (client_id, user_id, conversation_id, rev, entries, updated_at)
       VALUES (@client_id, @user_id, @conversation_id, @rev, @entries, @updated_at)
       ON CONFLICT (client_id) DO UPDATE SET rev = excluded.rev, entries = excluded.entries, updated_at = excluded.updated_at
       WHERE excluded.rev >= page_contexts.rev`,
  )
  const get = db.prepare<[string], PageContextRow>('SELECT * FROM page_contexts WHERE client_id = ?')
  return {
    putPageContext: async (c: PageContextRecord) =>
      put.run({
        client_id: c.clientId,
        user_id: c.userId,
        conversation_id: c.conversationId,
        rev: c.rev,
        entries: JSON.stringify(c.entries),
        updated_at: c.updatedAt,
      }).changes === 1,
    getPageContext: async (clientId: string) => {
      const r = get.get(clientId)
      return (
        r && {
          clientId: r.client_id,
          userId: r.user_id,
          conversationId: r.conversation_id,
          rev: r.rev,
          entries: JSON.parse(r.entries) as PageContextRecord['entries'],
          updatedAt: r.updated_at,
        }
      )
    },
  }
}
