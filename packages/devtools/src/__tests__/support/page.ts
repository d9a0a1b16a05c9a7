// The page of panel.browser.test.ts: a registry with the devtools panel open, bundled by esbuild.
import { type ConsumerHost, createToolmark, ok } from '@toolmark/core'
import { openPanel, type ToolmarkDevtoolsElement } from '../../panel.ts'

const tm = createToolmark()
tm.register({ name: 'notes.list', description: 'List notes', hints: { readOnly: true }, run: () => ok([]) })
let host!: ConsumerHost
tm.use((h) => {
  host = h
  return undefined
})
const panel = openPanel(host, () => {}) as ToolmarkDevtoolsElement
Object.assign(window, {
  /** Imports `text` as the panel's "Import session" does with a file's text. */
  importSession: (text: string, name: string) => panel.import(text, name),
  /** Shows one tab of the panel. */
  showTab: (tab: string) => panel.shadowRoot!.querySelector<HTMLElement>(`#tab-${tab}`)!.click(),
  ready: true,
})
