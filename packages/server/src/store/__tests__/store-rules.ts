import { describe, expect, it } from 'vitest'
import type { CallBinding, ConfirmBinding, Store } from '../store.ts'

/** Opens a fresh, empty store (its own database) whose clock is `now`. */
export type OpenStore = (now?: () => number) => Promise<Store>

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

const confirmOf = (userId: string, conversationId: string): ConfirmBinding => ({
  confirmId: 'k1',
  userId,
  conversationId,
  clientId: 'page-1',
  callId: 'c1',
  toolCallId: 'tc',
  tool: 'x',
  summary: 'Do x',
  createdAt: 1,
  state: 'pending',
})

/**
 * The rules every {@link Store} keeps, whatever is behind it: single-use transitions, the first
 * confirmation binding wins, manifests only move forward, pruning removes a user's data with their
 * last session. Run by each store's own test file against a real instance of it.
 */
export function storeRules(name: string, open: OpenStore): void {
  describe(`${name} store rules`, () => {
    it("counts a user's conversations (the cap on conversations per user reads it)", async () => {
      const s = await open()
      const [alice, bob] = [await s.createUser(), await s.createUser()]
      expect(await s.countConversations?.(alice.id)).toBe(0)
      await s.createConversation(alice.id)
      await s.createConversation(alice.id)
      await s.createConversation(bob.id)
      expect(await s.countConversations?.(alice.id)).toBe(2)
      expect(await s.countConversations?.(bob.id)).toBe(1)
      await s.close()
    })

    it('settles calls and confirmations exactly once, and times out pending calls after a restart', async () => {
      const s = await open()
      const user = await s.createUser()
      const conversation = await s.createConversation(user.id)
      await s.insertCall(call('c1', user.id, conversation.id))
      await s.insertCall(call('c2', user.id, conversation.id))
      await expect(s.insertCall(call('c1', user.id, conversation.id))).rejects.toThrow()
      expect(await s.settleCall('c1', 'answered')).toBe(true)
      expect(await s.settleCall('c1', 'answered')).toBe(false)
      expect(await s.settleCall('c1', 'timed_out')).toBe(false)
      expect(await s.timeOutPendingCalls()).toBe(1)
      expect((await s.getCall('c2'))!.state).toBe('timed_out')

      const confirm = confirmOf(user.id, conversation.id)
      expect(await s.insertConfirm(confirm)).toBe(true)
      expect(await s.insertConfirm({ ...confirm, clientId: 'page-2' })).toBe(false) // the first binding wins
      expect((await s.getConfirm('k1'))!.clientId).toBe('page-1')
      expect(await s.insertConfirm({ ...confirm, confirmId: 'k2' })).toBe(true)
      expect(await s.settleConfirm('k1', 'used')).toBe(true)
      expect(await s.settleConfirm('k1', 'used')).toBe(false)
      expect((await s.expireConfirms(conversation.id, 'page-1')).map((c) => c.confirmId)).toEqual(['k2'])
      expect((await s.getConfirm('k2'))!.state).toBe('expired')
      expect(await s.expireConfirms(conversation.id, 'page-1')).toEqual([])
      await s.close()
    })

    it('refuses an approval after the confirmation expired, and keeps who waits for a call', async () => {
      const s = await open()
      const user = await s.createUser()
      const conversation = await s.createConversation(user.id)
      await s.insertConfirm({ ...confirmOf(user.id, conversation.id), expiresAt: 5_000 })
      expect((await s.getConfirm('k1'))?.expiresAt).toBe(5_000)
      expect(await s.settleConfirm('k1', 'used', 5_000)).toBe(false) // expired at 5 000
      expect((await s.getConfirm('k1'))?.state).toBe('pending')
      expect(await s.settleConfirm('k1', 'expired', 5_000)).toBe(true)
      await s.insertConfirm({ ...confirmOf(user.id, conversation.id), confirmId: 'k2', expiresAt: 5_000 })
      expect(await s.settleConfirm('k2', 'used', 4_999)).toBe(true)
      await s.close()
    })

    it('lets exactly one of several concurrent settles of the same id win', async () => {
      const s = await open()
      const user = await s.createUser()
      const conversation = await s.createConversation(user.id)
      await s.insertCall(call('c1', user.id, conversation.id))
      await s.insertConfirm(confirmOf(user.id, conversation.id))
      const calls = await Promise.all([
        s.settleCall('c1', 'answered'),
        s.settleCall('c1', 'timed_out'),
        s.settleCall('c1', 'answered'),
      ])
      expect(calls.filter(Boolean)).toHaveLength(1)
      const confirms = await Promise.all([
        s.settleConfirm('k1', 'used'),
        s.settleConfirm('k1', 'used'),
        s.expireConfirms(conversation.id, 'page-1').then((expired) => expired.length === 1),
      ])
      expect(confirms.filter(Boolean)).toHaveLength(1)
      await s.close()
    })

    it('binds a call only to the active page load of its own conversation, in the statement that stores it', async () => {
      const s = await open()
      expect(s.bindCall).toBeTypeOf('function')
      const bindCall = s.bindCall!.bind(s)
      const user = await s.createUser()
      const other = await s.createUser()
      const conversation = await s.createConversation(user.id)
      // No page load yet: nothing is bound.
      expect(await bindCall(call('c1', user.id, conversation.id))).toBe(false)
      expect(await s.getCall('c1')).toBeUndefined()
      await s.setActiveClient(conversation.id, 'page-1')
      expect(await bindCall({ ...call('c1', user.id, conversation.id), clientId: 'page-2' })).toBe(false)
      expect(await bindCall(call('c1', other.id, conversation.id))).toBe(false) // another user's call
      expect(await bindCall(call('c1', user.id, 'no-such-conversation'))).toBe(false)
      expect(await s.getCall('c1')).toBeUndefined()
      expect(await bindCall(call('c1', user.id, conversation.id))).toBe(true)
      expect(await s.getCall('c1')).toMatchObject({ clientId: 'page-1', state: 'pending', deadlineAt: 2 })
      await expect(bindCall(call('c1', user.id, conversation.id))).rejects.toThrow() // one binding per id
      // Rebound (a reload): the old page load gets no new call, the new one does.
      await s.setActiveClient(conversation.id, 'page-2')
      expect(await bindCall(call('c2', user.id, conversation.id))).toBe(false)
      expect(await bindCall({ ...call('c2', user.id, conversation.id), clientId: 'page-2' })).toBe(true)
      expect((await s.getCall('c2'))!.clientId).toBe('page-2')
      await s.close()
    })

    it('answers a call once, only from the page load it was sent to and not after its deadline', async () => {
      const s = await open()
      expect(s.answerCall).toBeTypeOf('function')
      const answerCall = s.answerCall!.bind(s)
      const user = await s.createUser()
      const conversation = await s.createConversation(user.id)
      const by = { userId: user.id, conversationId: conversation.id, clientId: 'page-1' }
      await s.insertCall(call('c1', user.id, conversation.id))
      expect(await answerCall('nope', by, 1)).toBeUndefined()
      expect(await answerCall('c1', { ...by, clientId: 'page-2' }, 1)).toBeUndefined()
      expect(await answerCall('c1', { ...by, userId: 'someone-else' }, 1)).toBeUndefined()
      expect(await answerCall('c1', { ...by, conversationId: 'another' }, 1)).toBeUndefined()
      expect(await answerCall('c1', by, 3)).toBeUndefined() // its deadline was 2
      expect((await s.getCall('c1'))!.state).toBe('pending') // none of those changed it
      const answered = await answerCall('c1', by, 2) // at the deadline itself: in time
      expect(answered).toMatchObject({ id: 'c1', clientId: 'page-1', toolCallId: 'tc', state: 'answered' })
      expect(await answerCall('c1', by, 2)).toBeUndefined() // single use
      expect(await s.settleCall('c1', 'timed_out')).toBe(false)
      expect((await s.getCall('c1'))!.state).toBe('answered')
      // A call timed out first is not answered afterwards.
      await s.insertCall(call('c2', user.id, conversation.id))
      expect(await s.settleCall('c2', 'timed_out')).toBe(true)
      expect(await answerCall('c2', by, 1)).toBeUndefined()
      // Of concurrent answers and a timeout, exactly one wins.
      await s.insertCall(call('c3', user.id, conversation.id))
      const outcomes = await Promise.all([
        answerCall('c3', by, 1).then((b) => b !== undefined),
        s.settleCall('c3', 'timed_out'),
        answerCall('c3', by, 1).then((b) => b !== undefined),
      ])
      expect(outcomes.filter(Boolean)).toHaveLength(1)
      await s.close()
    })

    it('keeps messages in the order they were added, and updates their text and agent entry', async () => {
      const s = await open()
      const user = await s.createUser()
      const conversation = await s.createConversation(user.id)
      for (const id of ['m1', 'm2', 'm3'])
        await s.addMessage({
          id,
          conversationId: conversation.id,
          role: 'user',
          text: id,
          at: 1,
          visible: true,
        })
      await s.addMessage({
        id: 'm4',
        conversationId: conversation.id,
        role: 'tool',
        text: 'ran',
        tool: 'x',
        at: 2,
        visible: false,
        agent: { role: 'tool', toolCallId: 'tc', name: 'page_call', content: '{}' },
      })
      await expect(
        s.addMessage({
          id: 'm1',
          conversationId: conversation.id,
          role: 'user',
          text: 'again',
          at: 3,
          visible: true,
        }),
      ).rejects.toThrow()
      await s.updateMessage('m2', 'changed', { role: 'user', text: 'changed' })
      await s.updateMessage('m4', 'ran [redacted]', undefined)
      const messages = await s.listMessages(conversation.id)
      expect(messages.map((m) => [m.id, m.text])).toEqual([
        ['m1', 'm1'],
        ['m2', 'changed'],
        ['m3', 'm3'],
        ['m4', 'ran [redacted]'],
      ])
      expect(messages[1]!.agent).toEqual({ role: 'user', text: 'changed' })
      expect(messages[3]).toEqual({
        id: 'm4',
        conversationId: conversation.id,
        role: 'tool',
        text: 'ran [redacted]',
        tool: 'x',
        at: 2,
        visible: false,
      })
      await s.setActiveClient(conversation.id, 'page-9')
      expect(await s.getActiveClient(conversation.id)).toBe('page-9')
      const manifest = {
        clientId: 'page-9',
        userId: user.id,
        conversationId: conversation.id,
        rev: 4,
        tools: [],
        updatedAt: 1,
      }
      if (s.getActivePage) expect(await s.getActivePage(conversation.id)).toBeUndefined() // no manifest yet
      await s.putManifest(manifest)
      if (s.getActivePage) expect(await s.getActivePage(conversation.id)).toEqual(manifest)
      await s.insertConfirm(confirmOf(user.id, conversation.id))
      await s.updateConfirmSummary('k1', 'Do [redacted]')
      expect((await s.listConfirms(conversation.id)).map((c) => c.summary)).toEqual(['Do [redacted]'])
      await s.close()
    })

    it('removes idle and surplus sessions, and with them the users left without one and all their data', async () => {
      const s = await open(() => 1_000)
      const users = [await s.createUser(), await s.createUser(), await s.createUser()]
      const sessions: Awaited<ReturnType<Store['createSession']>>[] = []
      const conversations: Awaited<ReturnType<Store['createConversation']>>[] = []
      for (const u of users) sessions.push(await s.createSession(u.id))
      for (const u of users) conversations.push(await s.createConversation(u.id))
      for (const [i, c] of conversations.entries()) {
        await s.addMessage({
          id: `m${i}`,
          conversationId: c.id,
          role: 'user',
          text: 'hi',
          at: 1,
          visible: true,
        })
        await s.insertCall(call(`c${i}`, users[i]!.id, c.id))
      }
      await s.touchSession(sessions[1]!.id, 5_000)
      await s.touchSession(sessions[2]!.id, 6_000)
      // Session 0 is idle; of the other two only the most recently used is kept.
      expect(await s.pruneSessions(sessions[0]!.lastSeenAt, 1)).toBe(2)
      expect(await s.countSessions()).toBe(1)
      expect(await s.getSession(sessions[2]!.id)).toEqual({ ...sessions[2], lastSeenAt: 6_000 })
      expect(await s.getConversation(conversations[0]!.id)).toBeUndefined()
      expect(await s.getConversation(conversations[1]!.id)).toBeUndefined()
      expect(await s.listMessages(conversations[1]!.id)).toEqual([])
      expect(await s.getCall('c1')).toBeUndefined()
      expect(await s.getConversation(conversations[2]!.id)).toEqual(conversations[2])
      expect(await s.listMessages(conversations[2]!.id)).toHaveLength(1)
      await s.close()
    })

    it("keeps each user's grants apart: newest first, one per tool, caller and conversation, expired ones left out, gone with the user", async () => {
      const s = await open(() => 1_000)
      const [alice, bob] = [await s.createUser(), await s.createUser()]
      const sessions = [await s.createSession(alice.id), await s.createSession(bob.id)]
      const conversation = await s.createConversation(alice.id)
      const grant = { tool: 'notes.add', fingerprint: '0123456789abcdef', caller: 'inapp' as const }
      await s.putGrant!({ ...grant, id: 'g1', userId: alice.id, createdAt: 1, expiresAt: 5_000 })
      await s.putGrant!({
        ...grant,
        id: 'g2',
        userId: alice.id,
        createdAt: 2,
        conversationId: conversation.id,
      })
      await s.putGrant!({
        ...grant,
        id: 'g3',
        userId: alice.id,
        createdAt: 3,
        caller: 'mcp',
        expiresAt: 9_000,
        title: 'Add note',
      })
      await s.putGrant!({ ...grant, id: 'g4', userId: bob.id, createdAt: 4, expiresAt: 5_000 })
      expect((await s.listGrants!(alice.id, 1_000)).map((g) => g.id)).toEqual(['g3', 'g2', 'g1'])
      expect((await s.listGrants!(alice.id, 1_000))[0]).toEqual({
        ...grant,
        id: 'g3',
        userId: alice.id,
        createdAt: 3,
        caller: 'mcp',
        expiresAt: 9_000,
        title: 'Add note',
      })
      // The same tool, caller and conversation: the newer grant replaces the older one.
      await s.putGrant!({
        ...grant,
        id: 'g5',
        userId: alice.id,
        createdAt: 5,
        expiresAt: 6_000,
        fingerprint: 'fedcba9876543210',
      })
      expect((await s.listGrants!(alice.id, 1_000)).map((g) => g.id)).toEqual(['g5', 'g3', 'g2'])
      expect((await s.listGrants!(alice.id, 6_000)).map((g) => g.id)).toEqual(['g3', 'g2'])
      // Only its own user revokes a grant.
      expect(await s.revokeGrant!(bob.id, 'g3')).toBe(false)
      expect(await s.revokeGrant!(alice.id, 'g3')).toBe(true)
      expect(await s.revokeGrant!(alice.id, 'g3')).toBe(false)
      expect((await s.listGrants!(bob.id, 1_000)).map((g) => g.id)).toEqual(['g4'])
      await s.touchSession(sessions[1]!.id, 2_000)
      expect(await s.pruneSessions(sessions[0]!.lastSeenAt, 10)).toBe(1)
      expect(await s.listGrants!(alice.id, 1_000)).toEqual([])
      expect((await s.listGrants!(bob.id, 1_000)).map((g) => g.id)).toEqual(['g4'])
      await s.close()
    })

    it('keeps the manifest with the highest rev, the user its app named, and one secret per name', async () => {
      const s = await open()
      await s.ensureUser('app-user-1')
      await s.ensureUser('app-user-1') // known already: no error
      const conversation = await s.createConversation('app-user-1')
      const manifest = {
        clientId: 'p',
        userId: 'app-user-1',
        conversationId: conversation.id,
        tools: [],
        updatedAt: 1,
      }
      expect(await s.putManifest({ ...manifest, rev: 2 })).toBe(true)
      expect(await s.putManifest({ ...manifest, rev: 1 })).toBe(false)
      expect(await s.putManifest({ ...manifest, rev: 2, updatedAt: 2 })).toBe(true)
      expect(await s.getManifest('p')).toMatchObject({ rev: 2, updatedAt: 2 })
      await expect(s.createConversation('nobody')).rejects.toThrow()
      const secrets = await Promise.all([s.secret('session', () => 'one'), s.secret('session', () => 'two')])
      expect(secrets[0]).toBe(secrets[1])
      expect(await s.secret('session', () => 'three')).toBe(secrets[0])
      await s.close()
    })

    it('keeps pending decisions: opened once, closed exactly once (also when closed first), listed while pending', async () => {
      const s = await open()
      const user = await s.createUser()
      const conversation = await s.createConversation(user.id)
      const key = { userId: user.id, conversationId: conversation.id, toolCallId: 'tc1', tool: 'notes.save' }
      const decision = {
        ...key,
        input: { name: 'A', nested: { n: 1 } },
        entry: '{"name":"notes.save"}',
        createdAt: 1,
        expiresAt: 100,
        state: 'pending' as const,
      }
      expect(await s.openDecision!(decision)).toBe(true)
      expect(await s.openDecision!({ ...decision, expiresAt: 999 })).toBe(false)
      expect(await s.pendingDecisions!(conversation.id)).toEqual([decision])
      // Two closers at once (two page loads answering): exactly one wins.
      const closed = await Promise.all([
        s.closeDecision!(key, 'decided', 5),
        s.closeDecision!(key, 'decided', 5),
        s.closeDecision!(key, 'dropped', 5),
      ])
      expect(closed.filter(Boolean)).toHaveLength(1)
      expect(await s.pendingDecisions!(conversation.id)).toEqual([])
      // Closed before it was opened (an answer raced the opening): opening later does nothing.
      const early = { ...key, toolCallId: 'tc2' }
      expect(await s.closeDecision!(early, 'decided', 6)).toBe(true)
      expect(await s.openDecision!({ ...decision, toolCallId: 'tc2' })).toBe(false)
      expect(await s.pendingDecisions!(conversation.id)).toEqual([])
      // A decision without input (it held a secret) is listed without one.
      const { input: _input, ...bare } = { ...decision, toolCallId: 'tc3' }
      expect(await s.openDecision!(bare)).toBe(true)
      expect(await s.pendingDecisions!(conversation.id)).toEqual([bare])
      await s.close()
    })
  })
}
