import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

/*
 * Each door of the package holds what its reader needs, and nothing grows into it unnoticed: the main entry
 * is what an app calls, `/store` what a store author needs, `/testing` what an app's tests use. Type-only
 * names count too, so the list is read with the TypeScript compiler, as a user's editor sees it.
 */

const src = (file: string) => fileURLToPath(new URL(`../${file}`, import.meta.url))
const config = ts.getParsedCommandLineOfConfigFile(
  fileURLToPath(new URL('../../tsconfig.json', import.meta.url)),
  {},
  { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
)
if (!config) throw new Error('packages/server/tsconfig.json could not be read')
const entries = ['index.ts', 'store.ts', 'testing.ts'].map(src)
const program = ts.createProgram(entries, config.options)
const checker = program.getTypeChecker()

function exportsOf(file: string): string[] {
  const source = program.getSourceFile(src(file))
  const symbol = source && checker.getSymbolAtLocation(source)
  if (!symbol) throw new Error(`${file} is not a module`)
  return checker
    .getExportsOfModule(symbol)
    .map((s) => s.name)
    .sort()
}

describe('the package entries', () => {
  it('@toolmark/server holds the server, its options and handlers, and the two ports: 19 names', () => {
    expect(exportsOf('index.ts')).toEqual(
      [
        // The server and how an app mounts it.
        'createToolmarkServer',
        'routeHandlers',
        'RouteHandler',
        'ToolmarkServer',
        'ToolmarkServerOptions',
        'Authenticate',
        'SessionCookieOptions',
        // The parts a server exposes (`server.relay`, `server.agent`, `server.events`) and what the relay reports.
        'Relay',
        'Rejection',
        'Agent',
        'ConversationEvents',
        // The Store port (its records are in /store).
        'Store',
        // The Provider port: the model contract of @toolmark/protocol, and the prompt the agent loop uses.
        'Provider',
        'ProviderRequest',
        'ProviderEvent',
        'AgentMessage',
        'LlmTool',
        'ToolCall',
        'SYSTEM_PROMPT',
      ].sort(),
    )
  })

  it('@toolmark/server/store holds the Store port (whole and by aggregate), its records, the in-memory store and its error', () => {
    expect(exportsOf('store.ts')).toEqual(
      [
        'Store',
        'User',
        'Session',
        'Conversation',
        'StoredMessage',
        'CallBinding',
        'ConfirmBinding',
        'PendingDecision',
        'DecisionKey',
        'Answerer',
        'ManifestRecord',
        'StoredGrant',
        'UserStore',
        'ConversationStore',
        'CallStore',
        'ConfirmStore',
        'DecisionStore',
        'PageStore',
        'GrantStore',
        'createMemoryStore',
        'StoreUnavailableError',
      ].sort(),
    )
  })

  it('@toolmark/server/testing holds the manual clock', () => {
    expect(exportsOf('testing.ts')).toEqual(['Clock', 'ManualClock', 'manualClock'].sort())
  })
})
