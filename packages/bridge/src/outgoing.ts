/** Outgoing messages a transport keeps while it cannot send them (disconnected, or waiting for its turn). */
export const MAX_BUFFERED_MESSAGES = 100

/** What an outgoing message is, for the choice of which one gives way when the buffer is full. */
export type OutgoingKind = 'manifest' | 'changed' | 'result' | 'confirmed' | 'other'

/** A buffered message's kind and how an error names it. */
export interface Labelled {
  kind: OutgoingKind
  label: string
}

/** True for the messages whose loss cannot be recovered: a `result` or a `confirmed`. */
export function isTerminal(kind: OutgoingKind): boolean {
  return kind === 'result' || kind === 'confirmed'
}

/** The kind of an outgoing message and its label (`"result" message (id …)`). */
export function labelOf(message: unknown): Labelled {
  const record = typeof message === 'object' && message !== null ? (message as Record<string, unknown>) : {}
  const type = record.type
  const kind: OutgoingKind =
    type === 'manifest' || type === 'changed' || type === 'result' || type === 'confirmed' ? type : 'other'
  const ref =
    kind === 'result' && typeof record.id === 'string'
      ? ` (id ${record.id})`
      : kind === 'confirmed' && typeof record.confirmId === 'string'
        ? ` (confirmId ${record.confirmId})`
        : ''
  return { kind, label: `"${kind}" message${ref}` }
}

/** Index of the oldest buffered manifest/changed that a later one (or `incoming`) supersedes, else -1. */
function findSuperseded(buffer: readonly Labelled[], incoming: Labelled): number {
  let laterManifest = incoming.kind === 'manifest'
  let laterAny = laterManifest || incoming.kind === 'changed'
  let oldest = -1
  for (let i = buffer.length - 1; i >= 0; i--) {
    const kind = buffer[i]!.kind
    if (kind === 'manifest') {
      if (laterManifest) oldest = i
      laterManifest = true
      laterAny = true
    } else if (kind === 'changed') {
      if (laterAny) oldest = i
      laterAny = true
    }
  }
  return oldest
}

/**
 * Which message gives way for `incoming` in a full buffer: a superseded `manifest`/`changed` first (`superseded`:
 * its news arrives with the later one), then the oldest other non-terminal message, then `incoming` itself when it
 * is non-terminal (`index` -1), and only then the oldest `result`/`confirmed`.
 */
export function giveWay(
  buffer: readonly Labelled[],
  incoming: Labelled,
): { index: number; superseded: boolean } {
  const superseded = findSuperseded(buffer, incoming)
  if (superseded >= 0) return { index: superseded, superseded: true }
  const nonTerminal = buffer.findIndex((entry) => !isTerminal(entry.kind))
  if (nonTerminal >= 0) return { index: nonTerminal, superseded: false }
  return { index: isTerminal(incoming.kind) ? 0 : -1, superseded: false }
}
