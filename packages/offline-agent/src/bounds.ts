/*
 * How much text the planner reads. Each text is cut to its maximum before planning, so one step's
 * work has a bound whatever the page or the user sends (a 1 MiB message plans like its first
 * MAX_TEXT characters).
 */

/** The most characters of one text the planner reads: a user message, one tool's description, a schema text. */
export const MAX_TEXT = 4096

/** The most characters of `page_call`'s description (the rendered manifest) the planner reads. */
export const MAX_MANIFEST = 65536

/** `text` cut to `max` characters. */
export function bounded(text: string, max: number = MAX_TEXT): string {
  return text.length > max ? text.slice(0, max) : text
}
