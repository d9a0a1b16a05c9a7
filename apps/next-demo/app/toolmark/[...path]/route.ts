// The bridge's HTTP transport (`/toolmark/events` SSE, `/toolmark/messages` POST): the same server.
export { GET, POST } from '../../../src/agent.ts'
