import { serverTools } from '@toolmark/bridge/server-tools'
import { createToolmark } from '@toolmark/core'

const tm = createToolmark()
// GET /toolmark/tools → { tools: [{ name, description, inputSchema, hints?, sensitivePaths?, url? }] }
const tools = serverTools(tm, { listUrl: '/toolmark/tools' })
const { skipped } = await tools.load() // again after a deploy or a login: one manifest update
for (const s of skipped) console.warn(`${s.name}: ${s.code}`) // schema_conversion_failed, invalid_definition
// challenges.create { title } → POST /toolmark/tools/challenges.create with X-XSRF-TOKEN
