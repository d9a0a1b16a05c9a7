import type { ToolManifestSummary } from './manifest.ts'
import type { ToolResult } from './results.ts'

/** The protocol version every message carries as `protocol`. */
export const PROTOCOL_VERSION = 1 as const

/** Default inbound size limit: UTF-8 bytes of a message's JSON text (1 MiB). */
export const DEFAULT_MAX_MESSAGE_BYTES = 1_048_576

/** Inbound nesting limit: objects and arrays nested deeper than this are rejected (the root is depth 1). */
export const MAX_DEPTH = 64

/** Longest accepted `clientId`, `id` or `confirmId`, in Unicode code points (UUIDs have 36). */
export const MAX_ID_LENGTH = 256

/** Fields every message carries. */
interface MessageBase {
  protocol: typeof PROTOCOL_VERSION
  /** The page load the message comes from (page → agent) or is addressed to (agent → page). */
  clientId: string
}

/** Page → agent: the tools visible to caller `inapp`, sent on attach and on each revision. */
export interface ManifestMessage extends MessageBase {
  type: 'manifest'
  /** The registry revision (integer ≥ 0). */
  rev: number
  tools: ToolManifestSummary[]
}

/** Page → agent: the registry changed (bridges created with `onChange: 'changed'`). */
export interface ChangedMessage extends MessageBase {
  type: 'changed'
  rev: number
}

/** Page → agent: the one answer to a `call` or `describe`. */
export interface ResultMessage extends MessageBase {
  type: 'result'
  /** The request's id. */
  id: string
  result: ToolResult
}

/** Page → agent: the final outcome of a deferred confirmation, after the result that created it. */
export interface ConfirmedMessage extends MessageBase {
  type: 'confirmed'
  confirmId: string
  result: ToolResult
}

/** Agent → page: run a tool as caller `inapp`. */
export interface CallMessage extends MessageBase {
  type: 'call'
  id: string
  /** Full tool name. */
  tool: string
  /** Always a JSON object; `{}` when the tool takes no input. */
  input: { [key: string]: unknown }
  /** The manifest revision the agent saw: a tool gone since then is `refused stale`, not `unknown_tool`. */
  rev?: number
}

/** Agent → page: fetch a tool's full manifest entry (answered with `ok` data). */
export interface DescribeMessage extends MessageBase {
  type: 'describe'
  id: string
  tool: string
}

/** Agent → page: abort the in-flight call with this id. Never answered itself. */
export interface CancelMessage extends MessageBase {
  type: 'cancel'
  id: string
}

/** Every message a page sends. */
export type PageToAgentMessage = ManifestMessage | ChangedMessage | ResultMessage | ConfirmedMessage

/** Every message a page accepts. */
export type AgentToPageMessage = CallMessage | DescribeMessage | CancelMessage

/** Any protocol v1 message. */
export type ProtocolMessage = PageToAgentMessage | AgentToPageMessage

/** Which way a message travels: `'toPage'` (agent → page) or `'toAgent'` (page → agent). */
export type MessageDirection = 'toPage' | 'toAgent'
