// "@toolmark/core/grants": remembered approvals ("allow for this conversation", "always for N days").
// The registry only needs a GrantStore (the `grants` option); this entry holds a store for apps
// without a server and the helpers a server-backed store shares (the fingerprint, the match rule).

export type { Grant, GrantCaller, GrantQuery, GrantStore, NewGrant, Remember } from '../types.ts'
export { canonicalJson, type FingerprintedTool, toolFingerprint } from './fingerprint.ts'
export { grantMatches, grantOf, isRemember, MAX_GRANT_DAYS } from './match.ts'
export { createGrantStore, DEFAULT_GRANTS_KEY, type GrantStoreOptions } from './memory.ts'
