import { describe, expect, it } from 'vitest'
import { clusterCoordinator } from '../../coordinate/cluster.ts'
import type { Cluster } from '../../relay/cluster.ts'
import type { ChatEvent } from '../../shared/contract.ts'
import { ConversationEvents } from '../events.ts'

const busy: ChatEvent = { type: 'busy', busy: true }

describe('conversation events', () => {
  it("an old stream's second unsubscribe does not remove the listener of the stream that replaced it", () => {
    const events = new ConversationEvents()
    const old: ChatEvent[] = []
    const fresh: ChatEvent[] = []
    const unsubscribeOld = events.subscribe('c1', (e) => old.push(e))
    unsubscribeOld() // the page reloads: the old stream aborts
    events.subscribe('c1', (e) => fresh.push(e)) // the reloaded page opens its stream
    unsubscribeOld() // the old stream's loop ends after its keep-alive sleep and unsubscribes again
    events.publish('c1', busy)
    expect(fresh).toEqual([busy])
    expect(old).toEqual([])
  })

  it('keeps the other listeners of a conversation when one unsubscribes', () => {
    const events = new ConversationEvents()
    const a: ChatEvent[] = []
    const b: ChatEvent[] = []
    const offA = events.subscribe('c1', (e) => a.push(e))
    events.subscribe('c1', (e) => b.push(e))
    offA()
    offA()
    events.publish('c1', busy)
    expect([a, b]).toEqual([[], [busy]])
  })

  it("shared mode: another instance's message in progress is forgotten when the last listener here leaves", async () => {
    let fromCluster!: (conversationId: string, event: unknown) => void
    const cluster = {
      instance: 'B',
      onEvent: (f: typeof fromCluster) => {
        fromCluster = f
      },
      onMessage: () => {},
      watch: async () => {},
      unwatch: () => {},
      publish: () => {},
      holder: async () => undefined,
      send: async () => {},
    } as unknown as Cluster
    const events = new ConversationEvents(clusterCoordinator(cluster))
    const first: ChatEvent[] = []
    const off = events.subscribe('c', (e) => first.push(e))
    await new Promise((resolve) => setTimeout(resolve, 0)) // no turn holder: the listener stops waiting
    fromCluster('c', { type: 'text-delta', messageId: 'm', delta: 'reply ', offset: 0 })
    expect(first).toEqual([{ type: 'text-delta', messageId: 'm', delta: 'reply ' }])
    // No longer watched here: the message's end will not arrive, so its text so far must not be handed out.
    off()
    // An event still in flight when it left arrives afterwards: nobody listens, so it is not kept either.
    fromCluster('c', { type: 'text-delta', messageId: 'm2', delta: 'reply ', offset: 0 })
    const second: ChatEvent[] = []
    events.subscribe('c', (e) => second.push(e))
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(second).toEqual([])
  })
})
