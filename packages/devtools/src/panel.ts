// The devtools panel: a custom element with its own shadow root and scoped styles, no framework.
// It renders a recorder's session (or an imported one) in five tabs and answers deferred
// confirmations exactly as the app's card does, with `tm.confirmPending`.
import type { Caller, ConsumerHost, GrantStore, PendingConfirmation } from '@toolmark/core'
import { grantLabel } from '@toolmark/core/adapter'
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
  type ToolRow,
} from './recorder.ts'

const TABS = [
  ['registry', 'Registry'],
  ['calls', 'Calls'],
  ['pending', 'Pending'],
  ['grants', 'Grants'],
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

/** A child of {@link h}: a node, text (numbers too), or nothing (`false`, `null`, `undefined`, `''`). */
type Child = Node | string | number | false | null | undefined
/** Attributes of {@link h}: `undefined` and `false` leave one out, `true` sets it empty. */
type Attrs = Record<string, string | number | boolean | undefined>

/**
 * An element with attributes and children. Recorded and imported data only ever becomes text
 * nodes and attribute values here, never markup: a session file cannot run script in the page.
 */
function h(tag: string, attrs?: Attrs | null, ...children: (Child | readonly Child[])[]): HTMLElement {
  const node = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs ?? {}))
    if (v !== undefined && v !== false) node.setAttribute(k, v === true ? '' : String(v))
  node.append(...nodes(children))
  return node
}

/** The nodes of `children`, flattened; text stays text. */
function nodes(children: readonly (Child | readonly Child[])[]): (Node | string)[] {
  const out: (Node | string)[] = []
  for (const c of children.flat())
    if (c !== false && c !== null && c !== undefined && c !== '')
      out.push(typeof c === 'number' ? String(c) : c)
  return out
}

/** The value as text (anything an imported file holds, whatever its type). */
const str = (v: unknown): string => (typeof v === 'string' ? v : String(JSON.stringify(v) ?? v))
const json = (v: unknown): HTMLElement => h('pre', null, JSON.stringify(v, null, 2) ?? 'undefined')
/** `HH:MM:SS.mmm` of an epoch time; `?` for what is not a time (an imported file). */
const time = (at: unknown): string => {
  const d = new Date(typeof at === 'number' ? at : Number.NaN)
  return Number.isNaN(d.getTime()) ? '?' : d.toISOString().slice(11, 23)
}
/** Milliseconds with one decimal; `?` for what is not a number. */
const ms = (v: unknown): string => (typeof v === 'number' && Number.isFinite(v) ? v.toFixed(1) : '?')
/** The list, or none for what is not one (an imported file). */
const list = <T>(v: readonly T[] | undefined): readonly T[] => (Array.isArray(v) ? v : [])
const muted = (text: string): HTMLElement => h('p', { class: 'muted' }, text)

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
  /** The app's grant store, when it gave the devtools one. */
  #grants: GrantStore | undefined
  /** The pop-out window the panel is in, if any. */
  #window: Window | null = null
  /** Set while the panel moves between the page and its pop-out window. */
  #moving = false
  readonly #root = this.attachShadow({ mode: 'open' })

  /** Starts recording `host` and renders; `onClose` runs once when the panel closes. */
  attach(host: ConsumerHost, onClose: () => void, grants?: GrantStore): void {
    this.#host = host
    this.#onClose = onClose
    this.#grants = grants
    this.#recorder = createRecorder(host)
    this.#offs.push(this.#recorder.subscribe(() => this.#render()))
    if (grants) this.#offs.push(grants.subscribe(() => this.#renderGrants()))
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
      banner.replaceChildren(
        `Viewing the imported session ${this.#imported.name} (read-only). `,
        h('button', { type: 'button', 'data-act': 'live' }, 'Back to live'),
      )
    this.#renderRegistry()
    this.#renderCalls()
    this.#renderPending()
    this.#renderGrants()
    this.#renderConsumers()
    this.#refreshPlaygroundTools()
  }

  /** Re-renders a panel with `children`, keeping focus on the element with the same `data-key`. */
  #fill(id: Tab, ...children: (Child | readonly Child[])[]): void {
    const panel = this.#panel(id)
    // Focus inside a shadow root shows as its host element in the document.
    const active = (
      this.ownerDocument.activeElement === this ? this.#root.activeElement : null
    ) as HTMLElement | null
    const inside = active !== null && active !== panel && panel.contains(active)
    const key = active?.dataset?.key
    panel.replaceChildren(...nodes(children))
    if (!inside) return
    // Focus stays on the same control; when it is gone (an answered confirmation), on the panel.
    const again = key ? panel.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`) : null
    ;(again ?? panel).focus()
  }

  #renderRegistry(): void {
    const revs = list(this.#session.revisions)
    const now = revs[revs.length - 1]
    if (!now) return this.#fill('registry', muted('No revision recorded yet.'))
    const tools = list(now.tools)
    const head = h(
      'tr',
      null,
      ['Tool', 'Scope', 'Hints', 'Confirms', ...CALLERS].map((c) => h('th', { scope: 'col' }, c)),
    )
    // Grouped by scope (the root first), each group sorted by name as the manifest is.
    const byScope = new Map<string, ToolRow[]>()
    for (const t of [...tools].sort((a, b) => (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0)))
      byScope.set(t.scope, [...(byScope.get(t.scope) ?? []), t])
    const route = (scope: unknown): Child[] => {
      const owner = typeof scope === 'string' ? routeOf(this.#session.consumers, scope) : undefined
      return owner === undefined ? [] : [' ', h('span', { 'data-slot': 'route' }, `(route ${owner})`)]
    }
    const row = (t: ToolRow): HTMLElement => {
      const hints = Object.entries(t.hints ?? {})
        .filter(([, v]) => v)
        .map(([k]) => k)
        .join(', ')
      const cells = CALLERS.map((c) =>
        list(t.callers).includes(c)
          ? h('td', null, h('span', { 'aria-hidden': 'true' }, '✓'), h('span', { class: 'sr' }, 'sees it'))
          : h(
              'td',
              null,
              h('span', { 'aria-hidden': 'true' }, '–'),
              h('span', { class: 'sr' }, 'does not see it'),
            ),
      )
      return h(
        'tr',
        { 'data-tool': str(t.name) },
        h('th', { scope: 'row' }, str(t.name)),
        h('td', null, str(t.scope || '(root)'), ...route(t.scope)),
        h('td', null, hints || 'unannotated'),
        h('td', null, t.needsConfirmation ? 'yes' : 'no'),
        cells,
      )
    }
    const groups = [...byScope].map(([scope, rows]) =>
      h(
        'tbody',
        { 'data-scope': str(scope) },
        h(
          'tr',
          null,
          h('th', { scope: 'rowgroup', colspan: 4 + CALLERS.length }, `Scope ${str(scope || '(root)')}`),
        ),
        rows.map(row),
      ),
    )
    const history = [...revs].reverse().map((r) => {
      const diff = r.diff ?? { added: [], removed: [], changed: [] }
      const parts = [
        ...list(diff.added).map((n) => `added ${str(n)}`),
        ...list(diff.removed).map((n) => `removed ${str(n)}`),
        ...list(diff.changed).map((c) => `changed ${str(c.name)} (${list(c.fields).map(str).join(', ')})`),
      ]
      return h(
        'li',
        { 'data-rev': str(r.rev) },
        `rev ${str(r.rev)} at ${time(r.at)}: ${parts.join('; ') || 'no tool changed (visibility only)'}`,
      )
    })
    // The page on screen, when a route-aware adapter says (`@toolmark/inertia`: its component).
    const page = (this.#session.consumers?.routes as { page?: unknown } | undefined)?.page
    this.#fill(
      'registry',
      h(
        'p',
        null,
        'Current revision: ',
        h('strong', { 'data-slot': 'rev' }, str(now.rev)),
        `, ${tools.length} visible tools. A ✓ means the policy lets that caller see the tool (it is in `,
        h('code', null, 'tm.manifest({ caller })'),
        ').',
      ),
      typeof page === 'string' &&
        h('p', null, 'Page on screen: ', h('strong', { 'data-slot': 'page' }, page)),
      h('table', null, h('caption', { class: 'sr' }, 'Tools by caller'), h('thead', null, head), groups),
      h('h3', null, 'Revisions'),
      h('ol', { reversed: true }, history),
    )
  }

  #renderCalls(): void {
    const calls = [...list(this.#session.calls)].reverse()
    if (calls.length === 0)
      return this.#fill(
        'calls',
        muted('No call yet. Calls of every caller appear here while the panel is open.'),
      )
    this.#fill(
      'calls',
      h('p', null, `${calls.length} calls, newest first.`),
      calls.map((c) => this.#call(c)),
    )
  }

  #call(c: CallEntry): HTMLElement {
    const confirmations = list(c.confirmations).map((x) =>
      h(
        'li',
        null,
        `${str(x.mode)} confirmation: card ${x.mode === 'inline' ? 'shown' : 'offered'} at ${time(x.requestedAt)}, ${
          x.outcome ? `${str(x.outcome)} after ${str(x.waitMs)} ms` : `open, expires ${time(x.expiresAt)}`
        }. ${str(x.why)} `,
        h('span', { class: 'muted' }, `Summary: ${str(x.summary)}`),
      ),
    )
    const issues = list(c.issues)
    const decision = c.decision ?? { kind: 'error', reason: '' }
    const callId = str(c.callId)
    return h(
      'details',
      { 'data-call': callId, open: this.#open.has(callId) },
      h(
        'summary',
        { 'data-key': `call-${callId}` },
        `${time(c.startedAt)} `,
        h('strong', null, str(c.tool)),
        ` by ${str(c.caller)}: `,
        h(
          'span',
          { class: `k-${str(decision.kind)}` },
          `${str(decision.kind)}${decision.code ? ` (${str(decision.code)})` : ''}`,
        ),
        c.durationMs === undefined ? '' : ` in ${ms(c.durationMs)} ms`,
        c.result === undefined && c.progress
          ? h(
              'span',
              { 'data-slot': 'progress' },
              ` ${c.progress.fraction === undefined ? '' : `${Math.round(c.progress.fraction * 100)}% `}${str(c.progress.message ?? '')}`,
            )
          : '',
      ),
      h('p', { 'data-slot': 'decision' }, `Policy decision: ${str(decision.reason)}`),
      h('h3', null, 'Input (redacted)'),
      c.input === undefined
        ? muted('Not shown: the tool is not known, so its sensitive paths are not either.')
        : json(c.input),
      issues.length > 0 && [
        h('h3', null, 'Validation issues'),
        h(
          'ul',
          null,
          issues.map((i) => h('li', null, h('code', null, str(i.path || '(root)')), `: ${str(i.message)}`)),
        ),
      ],
      confirmations.length > 0 && [h('h3', null, 'Confirmation'), h('ul', null, confirmations)],
      h('h3', null, 'Result'),
      c.result ? json(c.result) : muted('Not answered yet.'),
      h(
        'p',
        { class: 'muted' },
        `Call id ${callId}`,
        c.traceId ? [', trace id ', h('code', null, str(c.traceId))] : ', no trace id',
        `.${c.queuedMs === undefined ? '' : ` Queue wait ${ms(c.queuedMs)} ms.`}`,
      ),
    )
  }

  #renderPending(): void {
    if (this.#imported) return this.#fill('pending', muted('Pending confirmations are live only.'))
    const pending = this.#host!.pendingConfirmations()
    const inline = this.#session.calls.flatMap((c) =>
      c.confirmations.filter((x) => x.mode === 'inline' && !x.outcome).map((x) => ({ c, x })),
    )
    const now = Date.now()
    const card = (p: PendingConfirmation): HTMLElement => {
      const left = Math.max(0, Math.round((p.expiresAt - now) / 1000))
      return h(
        'li',
        { 'data-confirm': p.confirmId },
        h('strong', null, p.title ?? p.tool),
        ` asked by ${p.caller}: ${p.summary}`,
        h(
          'p',
          null,
          h('span', { role: 'timer', 'aria-live': 'off' }, `${left} s left`),
          '. Deferred: the caller cannot wait in the page, so the call answered needs_confirmation and this waits for the user.',
        ),
        json(p.input),
        h(
          'button',
          {
            type: 'button',
            'data-act': 'approve',
            'data-id': p.confirmId,
            'data-key': `approve-${p.confirmId}`,
          },
          p.destructive ? 'Delete' : 'Approve',
        ),
        ' ',
        h(
          'button',
          {
            type: 'button',
            'data-act': 'reject',
            'data-id': p.confirmId,
            'data-key': `reject-${p.confirmId}`,
          },
          'Reject',
        ),
      )
    }
    const inlineItems = inline.map(({ c, x }) =>
      h(
        'li',
        null,
        h('strong', null, c.tool),
        ` asked by ${c.caller}: ${x.summary}. ${x.why} Answer it in the page's card.`,
      ),
    )
    this.#fill(
      'pending',
      h('h3', null, `Deferred (${pending.length})`),
      pending.length ? h('ul', null, pending.map(card)) : muted('None.'),
      h('h3', null, `Inline (${inline.length})`),
      inline.length ? h('ul', null, inlineItems) : muted('None.'),
    )
  }

  /** The user's grants (remembered approvals) with Revoke buttons, live only. */
  #renderGrants(): void {
    const store = this.#grants
    if (!store)
      return this.#fill(
        'grants',
        muted("Pass devtools({ grants }) (the registry's grant store) to list and revoke grants."),
      )
    if (this.#imported) return this.#fill('grants', muted('Grants are live only.'))
    const grants = store.list()
    this.#fill(
      'grants',
      h(
        'p',
        null,
        `${grants.length} remembered approvals: each lets calls of its tool by its caller run without a card while the tool is unchanged.`,
      ),
      grants.length
        ? h(
            'ul',
            null,
            grants.map((g) => {
              const label = grantLabel(g)
              return h(
                'li',
                { 'data-grant': g.id },
                h('strong', null, label.heading),
                ` ${label.detail}. `,
                h(
                  'span',
                  { class: 'muted' },
                  `Grant ${g.id}, tool ${g.tool}, fingerprint ${g.fingerprint}. `,
                ),
                h(
                  'button',
                  { type: 'button', 'data-act': 'revoke', 'data-id': g.id, 'data-key': `revoke-${g.id}` },
                  'Revoke',
                ),
              )
            }),
          )
        : muted('None.'),
    )
  }

  #renderConsumers(): void {
    const statuses = Object.entries(this.#session.consumers ?? {})
    const detail = (v: unknown): Child[] =>
      Array.isArray(v)
        ? v.length
          ? v.flatMap((x, i) => [i > 0 && ', ', h('code', null, str(x))])
          : ['none']
        : [str(v)]
    const status = ([name, s]: [string, { state: string; [k: string]: unknown }]): HTMLElement =>
      h(
        'li',
        { 'data-consumer': name },
        h('strong', null, name),
        ': ',
        h('span', { 'data-slot': 'state' }, str(s?.state)),
        Object.entries(s ?? {})
          .filter(([k]) => k !== 'state')
          .flatMap(([k, v]) => [`; ${k}: `, ...detail(v)]),
      )
    const seen = new Map<Caller, number>()
    for (const c of list(this.#session.calls)) seen.set(c.caller, (seen.get(c.caller) ?? 0) + 1)
    const errors = [...list(this.#session.errors)].reverse().slice(0, 50)
    this.#fill(
      'consumers',
      h('h3', null, 'Consumers'),
      statuses.length ? h('ul', null, statuses.map(status)) : muted('No consumer has published a status.'),
      h('h3', null, 'Callers seen'),
      seen.size
        ? h(
            'ul',
            null,
            [...seen].map(([c, n]) => h('li', null, `${str(c)}: ${n} calls`)),
          )
        : muted('No call yet.'),
      h('h3', null, 'Errors and warnings'),
      errors.length
        ? h(
            'ul',
            null,
            errors.map((e) =>
              h(
                'li',
                null,
                `${time(e.at)} ${str(e.level)} `,
                h('code', null, str(e.code)),
                `: ${str(e.message)}${e.tool ? ` (${str(e.tool)})` : ''}`,
              ),
            ),
          )
        : muted('None.'),
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
    select.replaceChildren(...names.map((n) => h('option', null, n)))
    select.value = names.includes(current) ? current : (names[0] ?? '')
  }

  async #run(): Promise<void> {
    const q = <T extends Element>(s: string) => this.#root.querySelector<T>(`[data-slot=${s}]`)!
    const out = q<HTMLElement>('pg-result')
    let input: unknown
    try {
      input = JSON.parse(q<HTMLTextAreaElement>('pg-input').value || 'null')
    } catch {
      out.replaceChildren(h('p', { role: 'alert' }, 'The input is not valid JSON.'))
      return
    }
    const tool = q<HTMLSelectElement>('pg-tool').value
    const caller = q<HTMLSelectElement>('pg-caller').value as Caller
    out.replaceChildren(h('p', null, 'Running…'))
    const result = await runAs(this.#host!, tool, input, caller)
    const shown =
      result.status === 'ok' && 'data' in result
        ? { ...result, data: this.#host!.redact(tool, result.data) }
        : result
    out.replaceChildren(h('h3', null, `Result as ${caller}`), json(shown))
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
      case 'revoke':
        void Promise.resolve(this.#grants?.revoke(id)).then(() => this.#renderGrants())
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

  /**
   * Shows an exported session read-only, as text only: nothing in the file becomes markup. A bad
   * file (not a session, or parts of the wrong shape) shows why in an alert and keeps the current view.
   */
  import(text: string, name = 'session'): void {
    let session: Session
    try {
      session = importSession(text)
    } catch (err) {
      return this.#alert((err as Error).message)
    }
    const before = this.#imported
    this.#imported = { name, session }
    try {
      this.#render()
      this.#alert(undefined)
    } catch {
      this.#imported = before
      this.#render()
      this.#alert('Not a Toolmark devtools session: a part of it has the wrong shape')
    }
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
export function openPanel(host: ConsumerHost, onClose: () => void, grants?: GrantStore): { close(): void } {
  if (!customElements.get('toolmark-devtools'))
    customElements.define('toolmark-devtools', ToolmarkDevtoolsElement)
  const el = document.createElement('toolmark-devtools') as ToolmarkDevtoolsElement
  document.body.append(el)
  el.attach(host, onClose, grants)
  return el
}
