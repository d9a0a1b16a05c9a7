import { ToolmarkError } from '../errors.ts'

/** What kind of owner claims tool names, for the collision message. */
export interface NameOwnerKind {
  /** The owners' kind in the message, e.g. `'route segment'`: "registered by route segment "app/layout"". */
  kind: string
  /** Where to keep the tool instead, e.g. `'segment'`: "keep it in one segment". Default: `kind`. */
  where?: string
}

/** Which owner (a route segment, a page, a layout) registered each full tool name, per registry. */
const owners = new WeakMap<object, Map<string, string>>()

/**
 * Claims the full tool name `name` (with its scope path) for `owner`, a label the developer
 * recognises such as `'app/challenges/layout'`, and returns the function that releases it.
 *
 * The same owner may claim a name again (a remount). When another owner holds it, a development
 * registry throws `ToolmarkError` `duplicate_name` naming both owners; a production one claims
 * nothing and leaves the report to the registry's own `duplicate_name` error event. Adapters call it
 * before registering, so a collision between two parts of an app says which two parts they are.
 */
export function claimToolName(
  tm: { readonly dev: boolean },
  name: string,
  owner: string,
  label: NameOwnerKind,
): () => void {
  let names = owners.get(tm)
  if (!names) {
    names = new Map()
    owners.set(tm, names)
  }
  const held = names.get(name)
  if (held !== undefined && held !== owner) {
    if (tm.dev) {
      const { kind, where = kind } = label
      throw new ToolmarkError(
        'duplicate_name',
        `Tool "${name}" is registered by ${kind} "${held}" and again by ${kind} "${owner}". Rename one of them, or keep it in one ${where}.`,
      )
    }
    return () => {}
  }
  if (held !== undefined) return () => {}
  const claimed = names
  claimed.set(name, owner)
  return () => {
    if (claimed.get(name) === owner) claimed.delete(name)
  }
}
