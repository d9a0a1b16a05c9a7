import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createMemoryStore } from '../src/store/memory.ts'
import { openSqliteStore } from '../src/store/sqlite.ts'
import type { CallBinding, Store } from '../src/store/store.ts'

const dir = mkdtempSync(join(tmpdir(), 'toolmark-store-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const call = (id: string, userId: string, conversationId: string): CallBinding => ({
  id,
  userId,
  conversationId,
  clientId: 'page-1',
  kind: 'call',
  tool: 'x',
  toolCallId: 'tc',
  deadlineAt: 2,
  createdAt: 1,
  state: 'pending',
})

describe('SQLite store', () => {
  it('persists across reopening a file (WAL), keeps secrets stable, and migrates once', () => {
    const file = join(dir, 'nested', 'demo.db')
    const a = openSqliteStore(file)
    const user = a.createUser()
    const session = a.createSession(user.id)
    const conversation = a.createConversation(user.id)
    a.setActiveClient(conversation.id, 'page-1')
    a.addMessage({
      id: 'm1',
      conversationId: conversation.id,
      role: 'user',
      text: 'hi',
      at: 1,
      visible: true,
      agent: { role: 'user', text: 'hi' },
    })
    a.putManifest({
      clientId: 'page-1',
      userId: user.id,
      conversationId: conversation.id,
      rev: 3,
      tools: [],
      updatedAt: 1,
    })
    const secret = a.secret('session', () => 'first')
    a.close()

    const b = openSqliteStore(file)
    expect(b.getSession(session.id)).toEqual(session)
    expect(b.getConversation(conversation.id)).toEqual(conversation)
    expect(b.getActiveClient(conversation.id)).toBe('page-1')
    expect(b.listMessages(conversation.id)).toEqual([
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
    expect(b.getManifest('page-1')).toMatchObject({ rev: 3, tools: [] })
    expect(b.secret('session', () => 'second')).toBe(secret)
    b.close()
  })
})

describe.each([
  ['SQLite', (now?: () => number) => openSqliteStore(':memory:', now)],
  ['memory', (now?: () => number) => createMemoryStore(now)],
] as Array<[string, (now?: () => number) => Store]>)('%s store rules', (_, open) => {
  it('settles calls and confirmations exactly once, and times out pending calls after a restart', () => {
    const s = open()
    const user = s.createUser()
    const conversation = s.createConversation(user.id)
    s.insertCall(call('c1', user.id, conversation.id))
    s.insertCall(call('c2', user.id, conversation.id))
    expect(s.settleCall('c1', 'answered')).toBe(true)
    expect(s.settleCall('c1', 'answered')).toBe(false)
    expect(s.settleCall('c1', 'timed_out')).toBe(false)
    expect(s.timeOutPendingCalls()).toBe(1)
    expect(s.getCall('c2')!.state).toBe('timed_out')

    const confirm = {
      confirmId: 'k1',
      userId: user.id,
      conversationId: conversation.id,
      clientId: 'page-1',
      callId: 'c1',
      toolCallId: 'tc',
      tool: 'x',
      summary: 'Do x',
      createdAt: 1,
      state: 'pending' as const,
    }
    expect(s.insertConfirm(confirm)).toBe(true)
    expect(s.insertConfirm({ ...confirm, clientId: 'page-2' })).toBe(false) // the first binding wins
    expect(s.getConfirm('k1')!.clientId).toBe('page-1')
    expect(s.insertConfirm({ ...confirm, confirmId: 'k2' })).toBe(true)
    expect(s.settleConfirm('k1', 'used')).toBe(true)
    expect(s.settleConfirm('k1', 'used')).toBe(false)
    expect(s.expireConfirms(conversation.id, 'page-1').map((c) => c.confirmId)).toEqual(['k2'])
    expect(s.getConfirm('k2')!.state).toBe('expired')
    expect(s.expireConfirms(conversation.id, 'page-1')).toEqual([])
    s.close()
  })

  it('removes idle and surplus sessions, and with them the users left without one and all their data', () => {
    const s = open(() => 1_000)
    const users = [s.createUser(), s.createUser(), s.createUser()]
    const sessions = users.map((u) => s.createSession(u.id))
    const conversations = users.map((u) => s.createConversation(u.id))
    for (const [i, c] of conversations.entries()) {
      s.addMessage({ id: `m${i}`, conversationId: c.id, role: 'user', text: 'hi', at: 1, visible: true })
      s.insertCall(call(`c${i}`, users[i]!.id, c.id))
    }
    s.touchSession(sessions[1]!.id, 5_000)
    s.touchSession(sessions[2]!.id, 6_000)
    // Session 0 is idle; of the other two only the most recently used is kept.
    expect(s.pruneSessions(sessions[0]!.lastSeenAt, 1)).toBe(2)
    expect(s.countSessions()).toBe(1)
    expect(s.getSession(sessions[2]!.id)).toBeDefined()
    expect(s.getConversation(conversations[0]!.id)).toBeUndefined()
    expect(s.getConversation(conversations[1]!.id)).toBeUndefined()
    expect(s.listMessages(conversations[1]!.id)).toEqual([])
    expect(s.getCall('c1')).toBeUndefined()
    expect(s.getConversation(conversations[2]!.id)).toEqual(conversations[2])
    expect(s.listMessages(conversations[2]!.id)).toHaveLength(1)
    s.close()
  })

  it('keeps the manifest with the highest rev, and the user its app named', () => {
    const s = open()
    s.ensureUser('app-user-1')
    s.ensureUser('app-user-1') // known already: no error
    const conversation = s.createConversation('app-user-1')
    const manifest = {
      clientId: 'p',
      userId: 'app-user-1',
      conversationId: conversation.id,
      tools: [],
      updatedAt: 1,
    }
    expect(s.putManifest({ ...manifest, rev: 2 })).toBe(true)
    expect(s.putManifest({ ...manifest, rev: 1 })).toBe(false)
    expect(s.putManifest({ ...manifest, rev: 2, updatedAt: 2 })).toBe(true)
    expect(s.getManifest('p')).toMatchObject({ rev: 2, updatedAt: 2 })
    expect(() => s.createConversation('nobody')).toThrow()
    s.close()
  })
})
