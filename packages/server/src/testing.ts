/**
 * `@toolmark/server/testing`: aids for an app's own tests. Pass `manualClock()` as the server's `clock`, then
 * `advance(ms)` to run deadlines, expiries and keep-alives without waiting.
 */

export { type Clock, type ManualClock, manualClock } from './shared/clock.ts'
