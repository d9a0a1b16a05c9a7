/** The names and limits of bridge protocol v1's opt-in extensions (see extensions.ts). */

/** The `progress` extension: a running call's progress (a fraction, a message, preliminary data). */
export const PROGRESS_EXTENSION = 'progress' as const

/** Most extension names one `extensions` message lists. */
export const MAX_EXTENSIONS = 16

/** Longest `message` of a `progress` message, in code points. */
export const MAX_PROGRESS_MESSAGE = 200

/** Largest `data` of a `progress` message, in characters of its JSON text (a page leaves larger data out). */
export const MAX_PROGRESS_DATA = 16_384

/** A page sends at most one `progress` per call in this many milliseconds (it keeps the latest in between). */
export const PROGRESS_INTERVAL_MS = 250

/** A server passes on at most this many `progress` messages per page load per second and drops the rest. */
export const MAX_PROGRESS_PER_SECOND = 20

/** The pattern of an extension name, as a regular expression source. */
export const EXTENSION_NAME_SOURCE = '^[a-z][a-z0-9_-]{0,31}$'
