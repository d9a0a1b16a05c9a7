// The offline planner (providers/embedded) reads this helper from here; it lives in @toolmark/server.
export { firstArray } from '@toolmark/server'
