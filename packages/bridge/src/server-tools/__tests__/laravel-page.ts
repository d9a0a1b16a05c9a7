// Bundled for the Laravel test: server tools on a page Laravel serves (same origin, its cookies).
import { createToolmark } from '@toolmark/core'
import { serverTools } from '../index.ts'

const tm = createToolmark({ confirm: () => ({ approved: true }) })
const tools = serverTools(tm, { listUrl: '/toolmark/tools' })
const noCsrf = createToolmark({ confirm: () => ({ approved: true }) })
const withoutToken = serverTools(noCsrf, { listUrl: '/toolmark/tools', headers: () => ({}) })

Object.assign(window, {
  tm,
  noCsrf,
  loaded: Promise.all([tools.load(), withoutToken.load()]),
  ready: true,
})
