// The conversation API (`/api/conversations…`, the chat's event stream, `/api/grants`): the demo's Toolmark server.
export { DELETE, GET, POST } from '../../../src/agent.ts'
