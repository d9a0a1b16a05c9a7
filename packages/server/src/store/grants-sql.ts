import type Database from 'better-sqlite3'
import type { StoredGrant } from './store.ts'

/** A grant's row (SQLite and PostgreSQL share the column names). */
export interface GrantRow {
  id: string
  user_id: string
  tool: string
  title: string | null
  fingerprint: string
  caller: string
  conversation_id: string | null
  created_at: number | string
  expires_at: number | string | null
}

/** A row as a grant (PostgreSQL returns BIGINT columns as strings). */
export const toGrant = (r: GrantRow): StoredGrant => ({
  id: r.id,
  userId: r.user_id,
  tool: r.tool,
  ...(r.title !== null && { title: r.title }),
  fingerprint: r.fingerprint,
  caller: r.caller as StoredGrant['caller'],
  ...(r.conversation_id !== null && { conversationId: r.conversation_id }),
  createdAt: Number(r.created_at),
  ...(r.expires_at !== null && { expiresAt: Number(r.expires_at) }),
})

/** A grant's values in column order (`id` … `expires_at`). */
export const grantValues = (g: StoredGrant): unknown[] => [
  g.id,
  g.userId,
  g.tool,
  g.title ?? null,
  g.fingerprint,
  g.caller,
  g.conversationId ?? null,
  g.createdAt,
  g.expiresAt ?? null,
]

/** The SQLite store's grant methods, over the `grants` table (migration 6). */
export function sqliteGrants(db: Database.Database) {
  const list = db.prepare<[string, number], GrantRow>(
    'SELECT * FROM grants WHERE user_id = ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY created_at DESC, rowid DESC',
  )
  const drop = db.prepare<[string, string, string, string | null]>(
    'DELETE FROM grants WHERE user_id = ? AND tool = ? AND caller = ? AND conversation_id IS ?',
  )
  const insert = db.prepare<unknown[]>(
    `INSERT INTO grants (id, user_id, tool, title, fingerprint, caller, conversation_id, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  const revoke = db.prepare<[string, string]>('DELETE FROM grants WHERE id = ? AND user_id = ?')
  const put = db.transaction((g: StoredGrant) => {
    drop.run(g.userId, g.tool, g.caller, g.conversationId ?? null)
    insert.run(...grantValues(g))
  })
  return {
    listGrants: async (userId: string, at: number) => list.all(userId, at).map(toGrant),
    putGrant: async (grant: StoredGrant) => {
      put(grant)
    },
    revokeGrant: async (userId: string, id: string) => revoke.run(id, userId).changes === 1,
  }
}
