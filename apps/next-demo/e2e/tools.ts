import type { Frame } from '../../demo/e2e/harness.ts'

/** The manifests the page sent (in order), as `{ clientId, rev, names }`. */
export function manifests(
  frames: readonly Frame[],
  from = 0,
): Array<{ clientId: string; rev: number; names: string[] }> {
  return frames
    .slice(from)
    .filter((f) => f.direction === 'sent' && f.message.type === 'manifest')
    .map((f) => ({
      clientId: f.message.clientId as string,
      rev: f.message.rev as number,
      names: (f.message.tools as Array<{ name: string }>).map((t) => t.name).sort(),
    }))
}

/** The tool names of the last manifest the page sent. */
export function lastTools(frames: readonly Frame[]): string[] {
  return manifests(frames).at(-1)?.names ?? []
}

/** Every distinct clientId the page used in the frames it sent. */
export function clientIds(frames: readonly Frame[]): string[] {
  return [...new Set(frames.filter((f) => f.direction === 'sent').map((f) => f.message.clientId as string))]
}

export const APP_TOOLS = ['app.navigate', 'app.whereAmI']
export const CHALLENGES_TOOLS = [
  'challenges.create',
  'challenges.delete',
  'challenges.export',
  'challenges.notes',
  'challenges.open',
  'challenges.search',
]
export const CHALLENGE_TOOLS = ['challenge.details', 'challenge.rename']
export const SETTINGS_TOOLS = ['settings.updateCard']
