import type { Grant, GrantCaller } from '../types.ts'
import { readableToolName } from './card-view.ts'

/** Who each caller kind is, in a grants list. */
export const GRANT_CALLER_NAMES: Readonly<Record<GrantCaller, string>> = {
  inapp: 'the in-app agent',
  webmcp: 'browser agents (WebMCP)',
  mcp: 'MCP clients',
  tour: 'tours',
  test: 'tests',
}

/** What a grants list shows of one grant. */
export interface GrantLabel {
  /** The tool's title, else its name made readable. */
  heading: string
  /** Who it lets through and for how long: "for the in-app agent, until 1/6/2027" or "…, in one conversation". */
  detail: string
}

/** The words a grants list (each adapter's, the devtools') shows for `grant`. */
export function grantLabel(grant: Grant): GrantLabel {
  const who = GRANT_CALLER_NAMES[grant.caller] ?? grant.caller
  const until =
    grant.conversation !== undefined
      ? 'in one conversation'
      : `until ${new Date(grant.expiresAt ?? 0).toLocaleDateString()}`
  return { heading: grant.title ?? readableToolName(grant.tool), detail: `Allowed for ${who}, ${until}` }
}
