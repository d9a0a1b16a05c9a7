import type { ConsumerHost, ToolResult } from '@toolmark/core'

/**
 * An opt-in extension of bridge protocol v1 on the page side (docs/protocol/v1.md, Extensions): its name is
 * announced in every manifest, and the agent → page message type it adds is validated and run by it. A plain
 * bridge carries none, so a page that does not opt in sends and accepts exactly protocol v1.
 */
export interface BridgeExtension {
  /** The name listed in the manifest's `extensions` (`^[a-z][a-z0-9_-]{0,31}$`). */
  readonly name: string
  /** The agent → page message type the extension adds. */
  readonly type: string
  /** Validates an inbound message of that type strictly: the message (with its `id`), or why not. */
  validate(
    value: Record<string, unknown>,
  ): { ok: true; message: { id: string } } | { ok: false; reason: string }
  /** Runs a validated message; the result answers its `id`, exactly once. Never rejects. */
  run(tm: ConsumerHost, message: { id: string }): Promise<ToolResult>
}
