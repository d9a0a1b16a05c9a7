import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createMemoryStore } from '../memory.ts'
import { openSqliteStore } from '../sqlite.ts'
import { storeRules } from './store-rules.ts'

const dir = mkdtempSync(join(tmpdir(), 'toolmark-store-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('SQLite store', () => {
  it('persists across reopening a file (WAL), keeps secrets stable, and migrates once', async () => {
    const file = join(dir, 'nested', 'demo.db')
    const a = openSqliteStore(file)
    const user = await a.createUser()
    const session = await a.createSession(user.id)
    const conversation = await a.createConversation(user.id)
    await a.setActiveClient(conversation.id, 'page-1')
    await a.addMessage({
      id: 'm1',
      conversationId: conversation.id,
      role: 'user',
      text: 'hi',
      at: 1,
      visible: true,
      agent: { role: 'user', text: 'hi' },
    })
    await a.putManifest({
      clientId: 'page-1',
      userId: user.id,
      conversationId: conversation.id,
      rev: 3,
      tools: [],
      updatedAt: 1,
    })
    const secret = await a.secret('session', () => 'first')
    await a.close()

    const b = openSqliteStore(file)
    expect(await b.getSession(session.id)).toEqual(session)
    expect(await b.getConversation(conversation.id)).toEqual(conversation)
    expect(await b.getActiveClient(conversation.id)).toBe('page-1')
    expect(await b.listMessages(conversation.id)).toEqual([
      {
        id: 'm1',
        conversationId: conversation.id,
        role: 'user',
        text: 'hi',
        at: 1,
        visible: true,
        agent: { role: 'user', text: 'hi' },
      },
    ])
    expect(await b.getManifest('page-1')).toMatchObject({ rev: 3, tools: [] })
    expect(await b.secret('session', () => 'second')).toBe(secret)
    await b.close()
  })
})

storeRules('SQLite', async (now) => openSqliteStore(':memory:', now))
storeRules('memory', async (now) => createMemoryStore(now))
