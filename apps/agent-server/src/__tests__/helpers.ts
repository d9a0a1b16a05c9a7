// The server's test helpers live with @toolmark/server; the demo's own tests use the same ones.
export * from '../../../../packages/server/src/__tests__/support/test-server.ts'
