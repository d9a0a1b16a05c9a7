import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../store/memory.ts'
import { openSqliteStore } from '../store/sqlite.ts'
import type { PageContextRecord, Store } from '../store/store.ts'

/*
 * The stores' page contexts (the `context` extension): the latest of each page load, never replaced by an older
 * rev, and gone with the user when pruning removes their last session. PostgreSQL runs the same rules through
 * page-context.test.ts in the `server-shared` project.
 */

describe.each([
  ['memory', () => createMemoryStore()],
  ['SQLite', () => openSqliteStore(':memory:')],
] as const)('%s store: page contexts', (_name, open: () => Store) => {
  it('keeps the highest rev per page load, and forgets a pruned user', async () => {
    const store = open()
    const user = await store.createUser()
    await store.createSession(user.id)
    const conversation = await store.createConversation(user.id)
    const record = (rev: number, value: unknown): PageContextRecord => ({
      clientId: 'page-1',
      userId: user.id,
      conversationId: conversation.id,
      rev,
      entries: [{ name: 'selection', description: 'Selected rows', value }],
      updatedAt: rev,
    })
    expect(await store.getPageContext!('page-1')).toBeUndefined()
    expect(await store.putPageContext!(record(2, [1]))).toBe(true)
    expect(await store.putPageContext!(record(1, [0]))).toBe(false)
    expect(await store.putPageContext!(record(2, { nested: { a: [] } }))).toBe(true) // the same rev again
    expect(await store.getPageContext!('page-1')).toEqual(record(2, { nested: { a: [] } }))
    await store.pruneSessions(Number.POSITIVE_INFINITY, 0)
    expect(await store.getPageContext!('page-1')).toBeUndefined()
    await store.close()
  })
})
