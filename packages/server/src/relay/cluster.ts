import type { ToolResult } from '@toolmark/core'
import type { AgentToPageMessage } from '@toolmark/protocol'
import type { ChatEvent, TextDeltaEvent } from '../shared/contract.ts'

/**
 * A chat event as instances fan it out. A text delta carries where it starts in its message (`offset`), so an
 * instance that saw the message from its start keeps the text so far; a `snapshot` is the text so far of the
 * message in progress (none: no message is in progress), the answer to a `snapshot-ask`.
 */
export type ClusterEvent =
  | Exclude<ChatEvent, TextDeltaEvent>
  | (TextDeltaEvent & { offset?: number })
  | { type: 'snapshot'; messageId?: string; text: string }

/** What one server instance sends another through the {@link Cluster}. */
export type ClusterMessage =
  /**
   * To the instance holding the page load: write `message` (a bridge message) to its sockets. A `call` carries
   * its id and `secrets` (its input's values at the tool's sensitive paths, which `message` holds already): the
   * holder cuts them out of the call's result before that crosses back.
   */
  | {
      kind: 'send'
      conversationId: string
      clientId: string
      message: AgentToPageMessage
      call?: { id: string; secrets: readonly string[] }
      /** Handed on by an instance that handed the page connection over (never handed on again). */
      again?: boolean
    }
  /**
   * To the instance waiting for a call: the page's answer, accepted (and settled) by the holder and masked
   * as the database's copy is (a describe's answer excepted); or, with `timedOut`, the timeout another
   * instance settled the call with (a result that arrived after the deadline).
   */
  | { kind: 'outcome'; callId: string; clientId: string; result: ToolResult; timedOut?: boolean }
  /**
   * To the instance holding an HTTP-transport page stream: a message the page POSTed to another instance.
   * With `reply`, the holder answers `posted` (to `reply.instance`, under `reply.id`) once it handled it. With
   * `refused`, the receiving instance found the message over the protocol's inbound limits: `body` is empty and
   * the holder rejects it with that detail.
   */
  | {
      kind: 'post'
      streamId: string
      userId: string
      body: string
      refused?: string
      reply?: { instance: string; id: string }
    }
  /** To the instance that handed a POST on: the holder handled it (`found`), or has no such stream any more. */
  | { kind: 'posted'; id: string; found: boolean }
  /**
   * To the instance holding an HTTP-transport page stream that resumes on `reply.instance` (`Last-Event-ID`): hand
   * it over, answered with `taken`.
   */
  | {
      kind: 'take'
      streamId: string
      userId: string
      conversationId: string
      reply: { instance: string; id: string }
    }
  /**
   * To the instance resuming a page stream: the stream as it was (its numbering, the events kept for a resume, the
   * page loads it carried), now its own; without `stream` there was no such stream (of that user) to hand over.
   */
  | { kind: 'taken'; id: string; stream?: MovedStream }
  /** To the instance holding an HTTP-transport page stream: close it (the page POSTed an oversized message). */
  | { kind: 'end'; streamId: string; userId: string }
  /**
   * To the instance running a turn of the conversation: tell `instance` (with `turn-ended`) once that turn
   * ended, or at once when no turn of it runs there.
   */
  | { kind: 'watch-turn'; conversationId: string; instance: string }
  /** To an instance waiting to run a turn of the conversation: the turn it waited for ended; claim it now. */
  | { kind: 'turn-ended'; conversationId: string }
  /**
   * To the instance running a turn of the conversation: publish a `snapshot` event of the message in progress (a
   * chat stream opened on another instance mid-message starts with it).
   */
  | { kind: 'snapshot-ask'; conversationId: string }

/** An HTTP-transport page stream handed from one instance to another (see the `taken` message). */
export interface MovedStream {
  id: string
  /** The number of its latest event. */
  seq: number
  /** The highest event number no longer kept. */
  evicted: number
  /** The events kept for a resume; `written` when a stream carried it, `requestId` of an undelivered request. */
  kept: Array<{ n: number; text: string; written: boolean; requestId?: string }>
  /** The page loads its connection carried. */
  clientIds: string[]
}

/** What one server instance tells every other one through {@link Cluster.broadcast}. */
export type BroadcastMessage =
  /** The conversation's page binding or its page's manifest changed: a copy of it kept anywhere is out of date. */
  { kind: 'page'; conversationId: string }

/**
 * How several server instances work as one (shared mode): who holds which page load, messages to one
 * instance, chat events to all. `@toolmark/server/redis` implements it on Redis; without one, a server
 * is a single instance and keeps all of this in its process.
 */
export interface Cluster {
  /** This instance's id (unique per process). */
  readonly instance: string
  /**
   * Claims `key` (a page load, a page stream) for this instance, with `value` stored beside it; the claim
   * lives 15 s (the relay's `LEASE_MS`) unless renewed (the heartbeats do, every third of it, with
   * {@link Cluster.renew}). It takes the key over from any other instance: call it when the page spoke here.
   */
  hold(key: string, value?: string): void
  /**
   * Keeps this instance's claim on `key` alive (the heartbeats): extends it while it is still this instance's,
   * or makes it again when it lapsed and nobody took it. Never takes it from another instance: one that took
   * the page load over keeps it (compare-and-set).
   */
  renew(key: string, value?: string): void
  /**
   * Claims `key` for this instance only when no other instance holds a live claim on it; true when this
   * instance holds it afterwards (it may have held it already). Renewed with {@link Cluster.renew}, given up
   * with {@link Cluster.release}, like a claim made with `hold`.
   */
  claim(key: string): Promise<boolean>
  /** Gives up a claim made with {@link Cluster.hold} or {@link Cluster.claim} (only when it is still this instance's). */
  release(key: string): void
  /**
   * Adds this instance to the set `key` for 15 s (the relay's `LEASE_MS`), renewed by calling it again (the
   * heartbeats do). Unlike a claim, a set has any number of members: the instances with a page connection of a
   * conversation that has not said yet which page load it carries.
   */
  join(key: string): void
  /** Takes this instance out of the set `key`. */
  leave(key: string): void
  /** The instances in the set `key` whose membership has not lapsed. */
  members(key: string): Promise<string[]>
  /** The instance holding `key` (and the value it stored), if any claim is live. */
  holder(key: string): Promise<{ instance: string; value: string } | undefined>
  /** Delivers `message` to `instance` (at least once: the receiver drops repeats by their ids). */
  send(instance: string, message: ClusterMessage): Promise<void>
  /** Adds a handler of the messages sent to this instance (each handler gets every message). */
  onMessage(handler: (message: ClusterMessage) => Promise<void> | void): void
  /**
   * Fans a chat event out to the other instances: with {@link Cluster.watch}, to those watching the
   * conversation; without it, to every one.
   */
  publish(conversationId: string, event: ClusterEvent): void
  /**
   * From now on, this instance gets the chat events other instances publish for `conversationId` (a chat
   * stream of it is open here): every event published after the promise resolves reaches it. Renewed by the
   * coordinator itself until {@link Cluster.unwatch}. Optional: a cluster without it sends every event everywhere.
   */
  watch?(conversationId: string): Promise<void>
  /** Stops what {@link Cluster.watch} started (the conversation's last chat stream here closed). */
  unwatch?(conversationId: string): void
  /** Adds a handler of the chat events other instances publish. */
  onEvent(handler: (conversationId: string, event: ClusterEvent) => void): void
  /**
   * Fans `message` out to every other instance, in order with the chat events; resolves once it is written
   * (rejects when the coordinator cannot be reached). Optional: without it nothing is broadcast, and what an
   * instance caches is only as fresh as its age bound.
   */
  broadcast?(message: BroadcastMessage): Promise<void>
  /** Adds a handler of the messages other instances broadcast (needed with {@link Cluster.broadcast}). */
  onBroadcast?(handler: (message: BroadcastMessage) => void): void
  /**
   * True for a while (15 s, the relay's `LEASE_MS`) after this instance's connection to the coordinator came
   * back: a Redis that restarted empty has lost every claim, and another instance may not have made its own again
   * yet, so a claim missing now may still come back.
   */
  settling(): boolean
  /** Resolves when the coordinator answers (readiness). */
  ping(): Promise<void>
}
