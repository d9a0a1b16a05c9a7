// The server's test helpers live with @toolmark/server; the demo's own tests use the same ones.
export * from '../../../../packages/server/src/__tests__/support/deployment.ts'
export * from '../../../../packages/server/src/__tests__/support/fake-page.ts'
export * from '../../../../packages/server/src/__tests__/support/http-client.ts'
export * from '../../../../packages/server/src/__tests__/support/page-links.ts'
export * from '../../../../packages/server/src/__tests__/support/scripted-provider.ts'
export * from '../../../../packages/server/src/__tests__/support/test-server.ts'
