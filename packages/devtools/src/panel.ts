// The devtools panel: a custom element with its own shadow root and scoped styles, no framework.
// It renders a recorder's session (or an imported one) in five tabs and answers deferred
// confirmations exactly as the app's card does, with `tm.confirmPending`.
import type { Caller, ConsumerHost, PendingConfirmation } from '@toolmark/core'
import {
  CALLERS,
  type CallEntry,
  createRecorder,
  exportSession,
  importSession,
  type Recorder,
  routeOf,
  runAs,
  type Session,
} from './recorder.ts'

const TABS = [
  ['registry', 'Registry'],
  ['calls', 'Calls'],
  ['pending', 'Pending'],
  ['consumers', 'Consumers'],
  ['playground', 'Playground'],
] as const
type Tab = (typeof TABS)[number][0]

/** The callers the playground can run as: every caller but `human`, who needs no confirmation. */
const PLAYGROUND_CALLERS = CALLERS.filter((c) => c !== 'human')

const STYLES = `
:host { all: initial; position: fixed; top: 0; right: 0; bottom: 0; z-index: 2147483647;
  width: min(560px, 100vw); font: 13px/1.4 system-ui, sans-serif; color: #1b1f24; }
:host([popped]) { width: 100vw; }
aside { box-sizing: border-box; height: 100%; display: flex; flex-direction: column; background: #fff;
  border-left: 1px solid #c8ccd1; box-shadow: -4px 0 16px rgb(0 0 0 / 12%); }
header { display: flex; gap: 6px; align-items: center; padding: 8px; border-bottom: 1px solid #dde1e5; }
h2 { font-size: 14px; margin: 0 auto 0 0; }
h3 { font-size: 13px; margin: 12px 0 4px; }
button, select, textarea, .file { font: inherit; }
button, .file { border: 1px solid #8a939c; background: #f6f8fa; border-radius: 4px; padding: 2px 8px; cursor: pointer; color: inherit; }
:focus-visible { outline: 2px solid #0b5cd5; outline-offset: 1px; }
[role=tablist] { display: flex; border-bottom: 1px solid #dde1e5; }
[role=tab] { border: 0; border-bottom: 2px solid transparent; border-radius: 0; background: none; padding: 6px 10px; }
[role=tab][aria-selected=true] { border-bottom-color: #0b5cd5; font-weight: 600; }
[role=tabpanel] { overflow: auto; padding: 8px; flex: 1; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; border-bottom: 1px solid #eef0f2; padding: 3px 4px; vertical-align: top; }
pre { background: #f6f8fa; padding: 6px; overflow: auto; max-height: 200px; margin: 4px 0; white-space: pre-wrap; }
details { border-bottom: 1px solid #eef0f2; padding: 4px 0; }
summary { cursor: pointer; }
.k-refused, .k-error, .k-invalid, .k-cancelled { color: #b3261e; }
.k-confirm { color: #8a5a00; }
.k-allowed { color: #1a7f37; }
.muted { color: #59636e; }
.banner { background: #fff8c5; padding: 6px 8px; }
textarea { width: 100%; box-sizing: border-box; min-height: 120px; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
`

const esc = (v: unknown): string => String(v).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
const json = (v: unknown): string => `<pre>${esc(JSON.stringify(v, null, 2) ?? 'undefined')}</pre>`
const time = (at: number): string => new Date(at).toISOString().slice(11, 23)

/** The panel element (`<toolmark-devtools>`). */
export class ToolmarkDevtoolsElement extends HTMLElement {
  #host: ConsumerHost | undefined
  #recorder: Recorder | undefined
  #imported: { name: string; session: Session } | undefined
  #tab: Tab = 'registry'
  #open = new Set<string>()
  #timer: ReturnType<typeof setInterval> | undefined
  #offs: (() => void)[] = []
  #onClose: () => void = () => {}
  /** The pop-out window the panel is in, if any. */
  #window: Window | null = null
  /** Set while the panel moves between the page and its pop-out window. */
  #moving = false
  readonly #root = this.attachShadow({ mode: 'open' })

  /** Starts recording `host` and renders; `onClose` runs once when the panel closes. */
  attach(host: ConsumerHost, onClose: () => void): void {
    this.#host = host
    this.#onClose = onClose
    this.#recorder = createRecorder(host)
    this.#offs.push(this.#recorder.subscribe(() => this.#render()))
    this.#root.innerHTML = `<style>${STYLES}</style>
<aside aria-label="Toolmark devtools">
  <header>
    <h2>Toolmark devtools</h2>
    <button type="button" data-act="popout">Pop out</button>
    <button type="button" data-act="export">Export session</button>
    <label class="file">Import session<input class="sr" type="file" accept="application/json,.json" data-act="import"></label>
    <button type="button" data-act="close" aria-keyshortcuts="Alt+Shift+D">Close</button>
  </header>
  <div class="banner" data-slot="banner" hidden></div>
  <p role="alert" data-slot="alert" class="banner" hidden></p>
  <div role="tablist" aria-label="Devtools sections">${TABS.map(
    ([id, label]) =>
      `<button type="button" role="tab" id="tab-${id}" aria-controls="panel-${id}" data-tab="${id}">${label}</button>`,
  ).join('')}</div>
  ${TABS.map(([id]) => `<section role="tabpanel" id="panel-${id}" aria-labelledby="tab-${id}" tabindex="0"></section>`).join('')}
</aside>`
    this.#root.addEventListener('click', (e) => this.#click(e))
    this.#root.addEventListener('keydown', (e) => this.#key(e as KeyboardEvent))
    this.#root.addEventListener('change', (e) => this.#change(e))
    this.#root.addEventListener('toggle', (e) => this.#toggled(e), true)
    this.#buildPlayground()
    this.#select('registry', true)
    this.#timer = setInterval(() => {
      if (this.#tab === 'pending') this.#renderPending()
    }, 1000)
  }

  /** Stops recording and removes the panel. */
  close(): void {
    if (!this.#recorder) return
    clearInterval(this.#timer)
    for (const off of this.#offs) off()
    this.#recorder.dispose()
    this.#recorder = undefined
    const popup = this.#window
    this.#window = null
    this.remove()
    popup?.close()
    this.#onClose()
  }

  /**
   * Moves the panel into a window of its own (the same live panel: it keeps recording and
   * answering); closing that window brings it back into the page. `false` when the browser blocked
   * the window (the panel says so).
   */
  popOut(): boolean {
    if (this.#window) return true
    const popup = open('', 'toolmark-devtools', 'popup,width=640,height=800')
    if (!popup) {
      this.#alert('The browser blocked the pop-out window.')
      return false
    }
    const page = this.ownerDocument
    popup.document.title = 'Toolmark devtools'
    popup.document.documentElement.lang = 'en'
    this.#window = popup
    this.#move(() => popup.document.body.append(popup.document.adoptNode(this)))
    this.setAttribute('popped', '')
    this.#root.querySelector<HTMLElement>('[data-act=popout]')!.hidden = true
    popup.addEventListener('pagehide', () => {
      if (this.#window !== popup) return
      this.#window = null
      this.removeAttribute('popped')
      this.#root.querySelector<HTMLElement>('[data-act=popout]')!.hidden = false
      this.#move(() => page.body.append(page.adoptNode(this)))
    })
    this.#select(this.#tab, true)
    return true
  }

  #move(fn: () => void): void {
    this.#moving = true
    try {
      fn()
    } finally {
      this.#moving = false
    }
  }

  /** Removed from the page by anything else: it stops recording as if closed. */
  disconnectedCallback(): void {
    if (!this.#moving) this.close()
  }

  #alert(message: string | undefined): void {
    const alert = this.#root.querySelector<HTMLElement>('[data-slot=alert]')!
    alert.hidden = message === undefined
    alert.textContent = message ?? ''
  }

  get #session(): Session {
    return this.#imported?.session ?? this.#recorder!.session
  }

  #panel(id: Tab): HTMLElement {
    return this.#root.getElementById(`panel-${id}`)!
  }

  #select(tab: Tab, focus: boolean): void {
    this.#tab = tab
    for (const [id] of TABS) {
      const t = this.#root.getElementById(`tab-${id}`)!
      t.setAttribute('aria-selected', String(id === tab))
      t.tabIndex = id === tab ? 0 : -1
      this.#panel(id).hidden = id !== tab
    }
    if (focus) this.#root.getElementById(`tab-${tab}`)!.focus()
    this.#render()
  }

  #render(): void {
    if (!this.#recorder) return
    const banner = this.#root.querySelector<HTMLElement>('[data-slot=banner]')!
    banner.hidden = !this.#imported
    if (this.#imported)
      banner.innerHTML = `Viewing the imported session ${esc(this.#imported.name)} (read-only). <button type="button" data-act="live">Back to live</button>`
    this.#renderRegistry()
    this.#renderCalls()
    this.#renderPending()
    this.#renderConsumers()
    this.#refreshPlaygroundTools()
  }

  /** Re-renders a panel, keeping focus on the element with the same `data-key`. */
  #fill(id: Tab, html: string): void {
    const panel = this.#panel(id)
    // Focus inside a shadow root shows as its host element in the document.
    const active = (
      this.ownerDocument.activeElement === this ? this.#root.activeElement : null
    ) as HTMLElement | null
    const inside = active !== null && active !== panel && panel.contains(active)
    const key = active?.dataset?.key
    panel.innerHTML = html
    if (!inside) return
    // Focus stays on the same control; when it is gone (an answered confirmation), on the panel.
    const again = key ? panel.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`) : null
    ;(again ?? panel).focus()
  }

  #renderRegistry(): void {
    const revs = this.#session.revisions
    const now = revs[revs.length - 1]
    if (!now) return this.#fill('registry', '<p class="muted">No revision recorded yet.</p>')
    const head = `<tr><th scope="col">Tool</th><th scope="col">Scope</th><th scope="col">Hints</th><th scope="col">Confirms</th>${CALLERS.map((c) => `<th scope="col">${c}</th>`).join('')}</tr>`
    // Grouped by scope (the root first), each group sorted by name as the manifest is.
    const byScope = new Map<string, typeof now.tools>()
    for (const t of [...now.tools].sort((a, b) => (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0)))
      byScope.set(t.scope, [...(byScope.get(t.scope) ?? []), t])
    const route = (scope: string): string => {
      const owner = routeOf(this.#session.consumers, scope)
      return owner === undefined ? '' : ` <span data-slot="route">(route ${esc(owner)})</span>`
    }
    const row = (t: (typeof now.tools)[number]): string => {
      const hints = Object.entries(t.hints)
        .filter(([, v]) => v)
        .map(([k]) => k)
        .join(', ')
      const cells = CALLERS.map((c) =>
        t.callers.includes(c)
          ? '<td><span aria-hidden="true">✓</span><span class="sr">sees it</span></td>'
          : '<td><span aria-hidden="true">–</span><span class="sr">does not see it</span></td>',
      ).join('')
      return `<tr data-tool="${esc(t.name)}"><th scope="row">${esc(t.name)}</th><td>${esc(t.scope || '(root)')}${route(t.scope)}</td><td>${esc(hints || 'unannotated')}</td><td>${t.needsConfirmation ? 'yes' : 'no'}</td>${cells}</tr>`
    }
    const rows = [...byScope]
      .map(
        ([scope, tools]) =>
          `<tbody data-scope="${esc(scope)}"><tr><th scope="rowgroup" colspan="${4 + CALLERS.length}">Scope ${esc(scope || '(root)')}</th></tr>${tools.map(row).join('')}</tbody>`,
      )
      .join('')
    const history = [...revs]
      .reverse()
      .map((r) => {
        const parts = [
          ...r.diff.added.map((n) => `added ${esc(n)}`),
          ...r.diff.removed.map((n) => `removed ${esc(n)}`),
          ...r.diff.changed.map((c) => `changed ${esc(c.name)} (${esc(c.fields.join(', '))})`),
        ]
        return `<li data-rev="${r.rev}">rev ${r.rev} at ${time(r.at)}: ${parts.join('; ') || 'no tool changed (visibility only)'}</li>`
      })
      .join('')
    // The page on screen, when a route-aware adapter says (`@toolmark/inertia`: its component).
    const page = (this.#session.consumers?.routes as { page?: unknown } | undefined)?.page
    const onScreen =
      typeof page === 'string' ? `<p>Page on screen: <strong data-slot="page">${esc(page)}</strong></p>` : ''
    this.#fill(
      'registry',
      `<p>Current revision: <strong data-slot="rev">${now.rev}</strong>, ${now.tools.length} visible tools. A ✓ means the policy lets that caller see the tool (it is in <code>tm.manifest({ caller })</code>).</p>${onScreen}
<table><caption class="sr">Tools by caller</caption><thead>${head}</thead>${rows}</table>
<h3>Revisions</h3><ol reversed>${history}</ol>`,
    )
  }

  #renderCalls(): void {
    const calls = [...this.#session.calls].reverse()
    if (calls.length === 0)
      return this.#fill(
        'calls',
        '<p class="muted">No call yet. Calls of every caller appear here while the panel is open.</p>',
      )
    this.#fill(
      'calls',
      `<p>${calls.length} calls, newest first.</p>${calls.map((c) => this.#call(c)).join('')}`,
    )
  }

  #call(c: CallEntry): string {
    const confirmations = c.confirmations
      .map(
        (x) =>
          `<li>${x.mode} confirmation: card ${x.mode === 'inline' ? 'shown' : 'offered'} at ${time(x.requestedAt)}, ${
            x.outcome ? `${x.outcome} after ${x.waitMs} ms` : `open, expires ${time(x.expiresAt)}`
          }. ${esc(x.why)} <span class="muted">Summary: ${esc(x.summary)}</span></li>`,
      )
      .join('')
    const issues = c.issues?.length
      ? `<h3>Validation issues</h3><ul>${c.issues.map((i) => `<li><code>${esc(i.path || '(root)')}</code>: ${esc(i.message)}</li>`).join('')}</ul>`
      : ''
    return `<details data-call="${esc(c.callId)}" ${this.#open.has(c.callId) ? 'open' : ''}>
<summary data-key="call-${esc(c.callId)}">${time(c.startedAt)} <strong>${esc(c.tool)}</strong> by ${esc(c.caller)}: <span class="k-${c.decision.kind}">${c.decision.kind}${c.decision.code ? ` (${esc(c.decision.code)})` : ''}</span>${c.durationMs === undefined ? '' : ` in ${c.durationMs.toFixed(1)} ms`}</summary>
<p data-slot="decision">Policy decision: ${esc(c.decision.reason)}</p>
<h3>Input (redacted)</h3>${c.input === undefined ? '<p class="muted">Not shown: the tool is not known, so its sensitive paths are not either.</p>' : json(c.input)}
${issues}
${confirmations ? `<h3>Confirmation</h3><ul>${confirmations}</ul>` : ''}
<h3>Result</h3>${c.result ? json(c.result) : '<p class="muted">Not answered yet.</p>'}
<p class="muted">Call id ${esc(c.callId)}${c.traceId ? `, trace id <code>${esc(c.traceId)}</code>` : ', no trace id'}.${c.queuedMs === undefined ? '' : ` Queue wait ${c.queuedMs.toFixed(1)} ms.`}</p>
</details>`
  }

  #renderPending(): void {
    if (this.#imported)
      return this.#fill('pending', '<p class="muted">Pending confirmations are live only.</p>')
    const pending = this.#host!.pendingConfirmations()
    const inline = this.#session.calls.flatMap((c) =>
      c.confirmations.filter((x) => x.mode === 'inline' && !x.outcome).map((x) => ({ c, x })),
    )
    const now = Date.now()
    const card = (p: PendingConfirmation): string => {
      const left = Math.max(0, Math.round((p.expiresAt - now) / 1000))
      return `<li data-confirm="${esc(p.confirmId)}"><strong>${esc(p.title ?? p.tool)}</strong> asked by ${esc(p.caller)}: ${esc(p.summary)}
<p><span role="timer" aria-live="off">${left} s left</span>. Deferred: the caller cannot wait in the page, so the call answered needs_confirmation and this waits for the user.</p>
${json(p.input)}
<button type="button" data-act="approve" data-id="${esc(p.confirmId)}" data-key="approve-${esc(p.confirmId)}">${p.destructive ? 'Delete' : 'Approve'}</button>
<button type="button" data-act="reject" data-id="${esc(p.confirmId)}" data-key="reject-${esc(p.confirmId)}">Reject</button></li>`
    }
    const inlineHtml = inline
      .map(
        ({ c, x }) =>
          `<li><strong>${esc(c.tool)}</strong> asked by ${esc(c.caller)}: ${esc(x.summary)}. ${esc(x.why)} Answer it in the page's card.</li>`,
      )
      .join('')
    this.#fill(
      'pending',
      `<h3>Deferred (${pending.length})</h3>${pending.length ? `<ul>${pending.map(card).join('')}</ul>` : '<p class="muted">None.</p>'}
<h3>Inline (${inline.length})</h3>${inline.length ? `<ul>${inlineHtml}</ul>` : '<p class="muted">None.</p>'}`,
    )
  }

  #renderConsumers(): void {
    const statuses = Object.entries(this.#session.consumers ?? {})
    const detail = (v: unknown): string =>
      Array.isArray(v)
        ? v.length
          ? v.map((x) => `<code>${esc(x)}</code>`).join(', ')
          : 'none'
        : v !== null && typeof v === 'object'
          ? esc(JSON.stringify(v))
          : esc(v)
    const status = ([name, s]: [string, { state: string; [k: string]: unknown }]): string =>
      `<li data-consumer="${esc(name)}"><strong>${esc(name)}</strong>: <span data-slot="state">${esc(s.state)}</span>${Object.entries(
        s,
      )
        .filter(([k]) => k !== 'state')
        .map(([k, v]) => `; ${esc(k)}: ${detail(v)}`)
        .join('')}</li>`
    const seen = new Map<Caller, number>()
    for (const c of this.#session.calls) seen.set(c.caller, (seen.get(c.caller) ?? 0) + 1)
    const errors = [...this.#session.errors].reverse().slice(0, 50)
    this.#fill(
      'consumers',
      `<h3>Consumers</h3>${
        statuses.length
          ? `<ul>${statuses.map(status).join('')}</ul>`
          : '<p class="muted">No consumer has published a status.</p>'
      }
<h3>Callers seen</h3>${
        seen.size
          ? `<ul>${[...seen].map(([c, n]) => `<li>${esc(c)}: ${n} calls</li>`).join('')}</ul>`
          : '<p class="muted">No call yet.</p>'
      }
<h3>Errors and warnings</h3>${
        errors.length
          ? `<ul>${errors.map((e) => `<li>${time(e.at)} ${esc(e.level)} <code>${esc(e.code)}</code>: ${esc(e.message)}${e.tool ? ` (${esc(e.tool)})` : ''}</li>`).join('')}</ul>`
          : '<p class="muted">None.</p>'
      }`,
    )
  }

  #buildPlayground(): void {
    this.#panel('playground').innerHTML =
      `<p>Runs a tool as the chosen caller. The call goes through lookup, policy, validation, confirmation and the scope's queue like any call of that caller: no back door. It appears in Calls.</p>
<p><label>Tool <select data-slot="pg-tool"></select></label>
<label>Caller <select data-slot="pg-caller">${PLAYGROUND_CALLERS.map((c) => `<option>${c}</option>`).join('')}</select></label></p>
<p><label for="pg-input">Input (JSON)</label><textarea id="pg-input" data-slot="pg-input" spellcheck="false">{}</textarea></p>
<p><button type="button" data-act="run">Run call</button></p>
<div data-slot="pg-result" aria-live="polite"></div>`
  }

  #refreshPlaygroundTools(): void {
    const select = this.#root.querySelector<HTMLSelectElement>('[data-slot=pg-tool]')!
    const names = this.#host!.manifest().tools.map((t) => t.name)
    if ([...select.options].map((o) => o.value).join() === names.join()) return
    const current = select.value
    select.innerHTML = names.map((n) => `<option>${esc(n)}</option>`).join('')
    select.value = names.includes(current) ? current : (names[0] ?? '')
  }

  async #run(): Promise<void> {
    const q = <T extends Element>(s: string) => this.#root.querySelector<T>(`[data-slot=${s}]`)!
    const out = q<HTMLElement>('pg-result')
    let input: unknown
    try {
      input = JSON.parse(q<HTMLTextAreaElement>('pg-input').value || 'null')
    } catch {
      out.innerHTML = '<p role="alert">The input is not valid JSON.</p>'
      return
    }
    const tool = q<HTMLSelectElement>('pg-tool').value
    const caller = q<HTMLSelectElement>('pg-caller').value as Caller
    out.innerHTML = '<p>Running…</p>'
    const result = await runAs(this.#host!, tool, input, caller)
    const shown =
      result.status === 'ok' && 'data' in result
        ? { ...result, data: this.#host!.redact(tool, result.data) }
        : result
    out.innerHTML = `<h3>Result as ${esc(caller)}</h3>${json(shown)}`
  }

  #click(e: Event): void {
    const target = (e.target as HTMLElement).closest<HTMLElement>('[data-act],[data-tab]')
    if (!target) return
    if (target.dataset.tab) return this.#select(target.dataset.tab as Tab, false)
    const id = target.dataset.id ?? ''
    switch (target.dataset.act) {
      case 'close':
        return this.close()
      case 'approve':
        void this.#host!.confirmPending(id, { approved: true }).then(() => this.#render())
        return
      case 'reject':
        void this.#host!.confirmPending(id, { approved: false }).then(() => this.#render())
        return
      case 'run':
        void this.#run()
        return
      case 'popout':
        this.popOut()
        return
      case 'export':
        return this.#export()
      case 'live':
        this.#imported = undefined
        return this.#render()
    }
  }

  #export(): void {
    const blob = new Blob([exportSession(this.#session)], { type: 'application/json' })
    const a = this.ownerDocument.createElement('a')
    a.href = URL.createObjectURL(blob)
    a.download = `toolmark-session-${new Date().toISOString().replace(/[:.]/g, '-')}.json`
    a.click()
    setTimeout(() => URL.revokeObjectURL(a.href), 0)
  }

  #change(e: Event): void {
    const input = e.target as HTMLInputElement
    if (input.dataset.act !== 'import' || !input.files?.[0]) return
    const file = input.files[0]
    void file.text().then((text) => this.import(text, file.name))
    input.value = ''
  }

  /** Shows an exported session read-only; a bad file shows why in an alert and keeps the current view. */
  import(text: string, name = 'session'): void {
    try {
      this.#imported = { name, session: importSession(text) }
      this.#alert(undefined)
    } catch (err) {
      this.#alert((err as Error).message)
    }
    this.#render()
  }

  #toggled(e: Event): void {
    const d = e.target as HTMLElement
    const id = d.dataset?.call
    if (!id) return
    if ((d as HTMLDetailsElement).open) this.#open.add(id)
    else this.#open.delete(id)
  }

  #key(e: KeyboardEvent): void {
    const tab = (e.target as HTMLElement).dataset?.tab as Tab | undefined
    if (e.key === 'Escape') {
      e.stopPropagation()
      return this.close()
    }
    if (!tab) return
    const i = TABS.findIndex(([id]) => id === tab)
    const next =
      e.key === 'ArrowRight'
        ? i + 1
        : e.key === 'ArrowLeft'
          ? i - 1
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? -1
              : null
    if (next === null) return
    e.preventDefault()
    this.#select(TABS.at(next % TABS.length)![0], true)
  }
}

/** Opens the panel on `host` (defining `<toolmark-devtools>` once); `onClose` runs when it closes. */
export function openPanel(host: ConsumerHost, onClose: () => void): { close(): void } {
  if (!customElements.get('toolmark-devtools'))
    customElements.define('toolmark-devtools', ToolmarkDevtoolsElement)
  const el = document.createElement('toolmark-devtools') as ToolmarkDevtoolsElement
  document.body.append(el)
  el.attach(host, onClose)
  return el
}
