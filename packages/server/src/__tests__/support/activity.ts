import type { BroadcastMessage, Cluster, ClusterMessage } from '../../relay/cluster.ts'
import type { Relay } from '../../relay/relay.ts'
import type { ChatEvent } from '../../shared/contract.ts'
import type { Store } from '../../store/store.ts'

/**
 * The work in flight in the server instances of one test, so the harness can wait until everything that
 * reached a server has been handled — on one instance, and across instances, where a page message handled
 * on one instance may be handed over Redis to another. It watches the parts each instance is built from:
 *
 * - every store call (a page message's handling is a chain of them; between two only microtasks run),
 * - every page message given to a relay connection (`receive` resolves once the relay handled it),
 * - every message between instances, from `send` until the receiving instance's handlers finished,
 * - every broadcast, from `broadcast` until each other instance's handlers finished,
 * - every coordinator read, and every claim written or given up (followed by a `PING` on the same Redis
 *   connection, which Redis answers after the write before it).
 *
 * {@link Activity.settled} resolves once none of that is in flight and none started during a turn of the event
 * loop; it never sleeps.
 */
export class Activity {
  /** The messages between instances handled so far, as `<kind> to <instance>`, in the order they were. */
  readonly crossings: string[] = []
  #inflight = 0
  /** How many instances' coordinators are watched (a broadcast reaches all but its sender). */
  #instances = 0
  #sent = 0
  #handled = 0
  /** Bumped whenever work starts, so a check can tell whether anything happened meanwhile. */
  #generation = 0
  #waiting: Array<() => void> = []
  /** Page loads (clientIds) whose client closed its connection, with the server connections still carrying them. */
  readonly #carriers = new Map<string, Set<object>>()

  /** Tracks `work` until it settles; returns it. */
  track<T>(work: Promise<T>): Promise<T> {
    this.#inflight++
    this.#generation++
    return work.finally(() => {
      this.#inflight--
      this.#wake()
    })
  }

  get #busy(): boolean {
    return this.#inflight > 0 || this.#handled < this.#sent
  }

  /** Resolves once nothing is in flight in any instance (see the class comment). */
  async settled(): Promise<void> {
    for (;;) {
      while (this.#busy) await new Promise<void>((resolve) => this.#waiting.push(resolve))
      const generation = this.#generation
      await new Promise((resolve) => setImmediate(resolve))
      if (!this.#busy && generation === this.#generation) return
    }
  }

  /** Resolves once no server connection carries `clientId` any more (its page closed its side first). */
  async gone(clientId: string): Promise<void> {
    while ((this.#carriers.get(clientId)?.size ?? 0) > 0)
      await new Promise<void>((resolve) => this.#waiting.push(resolve))
    await this.settled()
  }

  #wake(): void {
    for (const resolve of this.#waiting.splice(0)) resolve()
  }

  /** The store of one instance, every call tracked. */
  store<S extends Store>(store: S): S {
    return new Proxy(store, {
      get: (target, key) => {
        const value: unknown = Reflect.get(target, key)
        if (typeof value !== 'function') return value
        return (...args: unknown[]) => {
          const out: unknown = (value as (...a: unknown[]) => unknown).apply(target, args)
          return out instanceof Promise ? this.track(out) : out
        }
      },
    })
  }

  /** Tracks the page messages every connection of `relay` receives, and which page loads each carries. */
  relay(relay: Relay): void {
    const connect = relay.connect.bind(relay)
    relay.connect = (userId, conversationId, send, moved = []) => {
      const conn = connect(userId, conversationId, send, moved)
      const key = {}
      const carried = new Set<string>()
      const carry = (clientId: string) => {
        carried.add(clientId)
        const set = this.#carriers.get(clientId) ?? new Set()
        this.#carriers.set(clientId, set)
        set.add(key)
      }
      for (const clientId of moved) carry(clientId)
      const forget = () => {
        for (const clientId of carried) this.#carriers.get(clientId)?.delete(key)
        this.#generation++
        this.#wake()
      }
      return {
        receive: (text) => {
          const clientId = clientIdOf(text)
          if (clientId !== undefined && !carried.has(clientId)) carry(clientId)
          return this.track(conn.receive(text))
        },
        refuse: (detail) => this.track(conn.refuse(detail)),
        close: () => {
          // The relay's own work on a close (expiring a gone page's confirmations) is made of store calls.
          conn.close()
          forget()
        },
        handOver: (to) => {
          const clientIds = conn.handOver(to)
          forget()
          return clientIds
        },
      }
    }
  }

  /** One instance's coordinator (`name` in {@link Activity.crossings}), its messages and claims tracked. */
  cluster(inner: Cluster, name: string): Cluster {
    const handlers: Array<(message: ClusterMessage) => Promise<void> | void> = []
    const broadcastHandlers: Array<(message: BroadcastMessage) => void> = []
    this.#instances++
    inner.onBroadcast?.((message) => {
      try {
        for (const handler of broadcastHandlers) handler(message)
      } finally {
        this.#handled++
        this.#wake()
      }
    })
    inner.onMessage(async (message) => {
      try {
        for (const handler of handlers) await handler(message)
      } finally {
        this.crossings.push(`${message.kind} to ${name}`)
        this.#handled++
        this.#wake()
      }
    })
    return {
      instance: inner.instance,
      hold: (key, value) => {
        inner.hold(key, value)
        void this.track(inner.ping()).catch(() => {})
      },
      renew: (key, value) => {
        inner.renew(key, value)
        void this.track(inner.ping()).catch(() => {})
      },
      release: (key) => {
        inner.release(key)
        void this.track(inner.ping()).catch(() => {})
      },
      join: (key) => {
        inner.join(key)
        void this.track(inner.ping()).catch(() => {})
      },
      leave: (key) => {
        inner.leave(key)
        void this.track(inner.ping()).catch(() => {})
      },
      members: (key) => this.track(inner.members(key)),
      claim: (key) => this.track(inner.claim(key)),
      holder: (key) => this.track(inner.holder(key)),
      send: async (instance, message) => {
        this.#sent++
        this.#generation++
        try {
          await inner.send(instance, message)
        } catch (error) {
          this.#handled++ // never delivered: nothing will handle it
          this.#wake()
          throw error
        }
      },
      onMessage: (handler) => {
        handlers.push(handler)
      },
      publish: (conversationId: string, event: ChatEvent) => inner.publish(conversationId, event),
      onEvent: (handler) => inner.onEvent(handler),
      // Chat streams on any instance get the conversation's events.
      ...(inner.watch ? { watch: (conversationId: string) => this.track(inner.watch!(conversationId)) } : {}),
      ...(inner.unwatch ? { unwatch: (conversationId: string) => inner.unwatch!(conversationId) } : {}),
      settling: () => inner.settling(),
      ping: () => this.track(inner.ping()),
      ...(inner.broadcast
        ? {
            broadcast: async (message: BroadcastMessage) => {
              const others = this.#instances - 1
              this.#sent += others
              this.#generation++
              try {
                await inner.broadcast!(message)
              } catch (error) {
                this.#handled += others // never written: nobody will handle it
                this.#wake()
                throw error
              }
            },
          }
        : {}),
      onBroadcast: (handler) => {
        broadcastHandlers.push(handler)
      },
    }
  }
}

/** The `clientId` of a page message's JSON text, if it has one. */
function clientIdOf(text: string): string | undefined {
  try {
    const value = JSON.parse(text) as { clientId?: unknown }
    return typeof value?.clientId === 'string' ? value.clientId : undefined
  } catch {
    return undefined
  }
}
