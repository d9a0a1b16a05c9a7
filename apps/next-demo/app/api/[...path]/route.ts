// The conversation API (`/api/conversations…`, the chat's event stream): the demo's Toolmark server.
export { GET, POST } from '../../../src/agent.ts'
