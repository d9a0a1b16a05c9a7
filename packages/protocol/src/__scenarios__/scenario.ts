/*
 * The shape of a conformance scenario (one JSON file in this folder). A scenario is what one user (or two)
 * does with one server, step by step: pages load and send messages, the user types, the model answers,
 * time passes; each step may say what must happen. The runner in tests/conformance plays every scenario
 * against every server through a small driver and compares.
 *
 * scenario.schema.json (JSON Schema 2020-12) checks the same shape; the runner's tests hold every file to it.
 *
 * In every value, a string that is exactly `$name` stands for a bound value: `$A` is page A's clientId,
 * `$c1` an id bound by a `receive` step (`bind: "c1"`), `$new:k1` a fresh UUID v4 bound as `k1` (later `$k1`).
 */

import type { REJECT_REASONS } from '../wire.ts'

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

/** One manifest entry as a scenario writes it (the page sends it as is). */
export interface ScenarioTool {
  name: string
  llmName: string
  description: string
  hints: { [hint: string]: Json }
  title?: string
  sensitivePaths?: string[]
  [extra: string]: Json | undefined
}

/** Why a server rejected a page message: the reasons every server logs. */
export type RejectReason = keyof typeof REJECT_REASONS

/** A page load opens (a new clientId) and, with `manifest`, sends its first manifest. */
export interface OpenStep {
  open: string
  /** The user whose browser it is (default `u1`). */
  user?: string
  manifest?: { rev: number; tools: ScenarioTool[] }
}

/** The page sends a message; `protocol: 1` and the page's `clientId` are added unless the message has them. */
export interface SendStep {
  send: { [key: string]: Json }
  from: string
  /** Pads `result.data` (a string) so the message is exactly this many UTF-8 bytes of JSON. */
  padTo?: number
  /** Replaces `result.data` with nested arrays so the message is exactly this deep (the root object is 1). */
  nestTo?: number
  /** Sends the message this many times at once (a burst), not waiting for one to arrive before the next. */
  times?: number
}

/** The page sends a fixture file of packages/protocol/src/__fixtures__ as is, with `clientId` and ids replaced. */
export interface SendFixtureStep {
  sendFixture: string
  from: string
  /** Values for the fixture's `clientId`, `id` and `confirmId` when it has them (an empty one stays empty). */
  replace: { clientId?: string; id?: string; confirmId?: string }
}

/** A user action on a pending confirmation in the page: the page sends `confirmed` with its outcome. */
export interface ConfirmStep {
  confirm: string
  from: string
  /** approve and edit carry the tool's outcome as `result`; reject and expire send the page's fixed outcome. */
  action: 'approve' | 'edit' | 'reject' | 'expire'
  result?: Json
}

/** The page receives its next message of this type, matching every given field; `bind` keeps its id. */
export interface ReceiveStep {
  receive: { type: 'call' | 'describe' | 'cancel' | 'extensions'; [key: string]: Json }
  at: string
  bind?: string
  /** How long to wait in ms, or `deadline` (the target's call deadline plus a margin). Default 5000. */
  within?: number | 'deadline'
  /** The id must be a UUID v4 (≥ 122 random bits) and, with `distinctFrom`, differ from those bound ids. */
  idShape?: 'uuid-v4'
  distinctFrom?: string[]
  /** The message has no field but these, `protocol` and `clientId`. */
  exact?: boolean
}

/** The page receives no message of this type for `for` ms (default 500). */
export interface NothingStep {
  nothing: 'call' | 'describe' | 'cancel' | 'extensions'
  at: string
  for?: number
}

/** The page load ends (tab closed or reloaded): its connection closes and the page says it is gone. */
export interface LeaveStep {
  leave: string
}

/** The server never closed this page load's connection so far (it reconnected for none of its sends). */
export interface KeptStep {
  kept: string
}

/** The user types a chat message (an agent turn starts). */
export interface SayStep {
  say: string
  user?: string
}

/**
 * The model's next request for this user's conversation: what it must contain, then (with `reply`) what
 * the model answers. Without `reply` the request stays open for the next model step.
 */
export interface ModelStep {
  model: {
    user?: string
    /** Tool call id → the content the model gets as that call's result (the last one given for it). */
    sees?: { [toolCallId: string]: Json }
    /** Compare `sees` byte for byte with `JSON.stringify` of the expected value (else as parsed JSON). */
    exact?: boolean
    /** The tools offered: page_call rendered from exactly these entries plus page_describe; `[]` for none. */
    tools?: ScenarioTool[] | 'none'
    /** A sentence the system prompt must contain. */
    system?: string
    reply?:
      | { call: string; input: { [key: string]: Json }; id: string }
      | { describe: string; id: string }
      | { text: string }
  }
}

/** The server rejected the page message sent last with this reason (and forwarded nothing). */
export interface RejectedStep {
  rejected: RejectReason
  user?: string
}

/** Time passes: the target's call deadline (plus 300 ms), the confirmations' server-side lifetime, or ms. */
export interface WaitStep {
  wait: 'deadline' | 'confirmationLifetime' | number
}

/** Nothing the server stored for this user (rows, keys, logs of the run) contains these strings. */
export interface StoredStep {
  stored: { absent: string[] }
  user?: string
}

/** The conversation's chat has this line, as stored. */
export interface ChatStep {
  chat: { role: 'user' | 'assistant'; text: string }
  user?: string
}

/** One `tool-progress` event of the chat: how far the model's tool call `callId` has come. */
export interface ScenarioProgress {
  callId: string
  progress: { fraction?: number; message?: string }
}

/**
 * The conversation's live chat events (what a chat UI shows) since the previous `chatProgress` step: exactly
 * these progress events in this order, or, with `limit`, what a server passing on at most `limit` per second
 * lets through of the last burst (`times`): at least `limit` (or all, when fewer were sent), and at most
 * `limit` for each second the burst's handling touched (the burst took d seconds from its first send to its
 * last answer: floor(d) + 2 seconds). The user's chat is followed from the start of a scenario with such a step.
 */
export interface ChatProgressStep {
  chatProgress: ScenarioProgress[] | { limit: number }
  user?: string
}

/** One step of a scenario. */
export type ScenarioStep =
  | OpenStep
  | SendStep
  | SendFixtureStep
  | ConfirmStep
  | ReceiveStep
  | NothingStep
  | LeaveStep
  | KeptStep
  | SayStep
  | ModelStep
  | RejectedStep
  | WaitStep
  | StoredStep
  | ChatStep
  | ChatProgressStep

/** One scenario file. */
export interface Scenario {
  /** Unique, kebab-case; the key of expected-failures files. */
  id: string
  /** One sentence: what a conforming server does. */
  title: string
  /** The rules it checks, as docs/protocol/v1.md names them. */
  covers: string[]
  steps: ScenarioStep[]
}

/**
 * A scenario played once per fixture of a folder: `$fixture` in its steps is the fixture's path under
 * packages/protocol/src/__fixtures__, and its id is `<id>/<fixture file name without .json>`.
 */
export interface ScenarioTemplate extends Scenario {
  eachFixtureOf: string
  /** Fixtures (file name without .json) the template does not apply to, each with the reason. */
  except?: { [fixture: string]: string }
  /** Only the fixtures whose file name (without .json) matches this regular expression source. */
  fixturesMatching?: string
}
