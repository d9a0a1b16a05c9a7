import type { ScopeImpl } from './scope.ts'

/** Development-only code tests `process.env.NODE_ENV` where it sits (the rule: report.ts). */
declare const process: { env: { NODE_ENV?: string } }

/**
 * Revisions and change notification. Every registration change bumps the revision at once; the
 * published notification is debounced to one per microtask, so a burst of register/dispose calls
 * publishes one manifest. A scope's `when` is read at publish time: a visibility change is a
 * revision too.
 */
export class Revisions {
  #rev = 0
  #published = 0
  #scheduled = false
  /** Scopes whose `when` was ever set, with the visibility last published. */
  readonly #conditional = new Map<ScopeImpl, boolean>()
  readonly #listeners = new Set<(rev: number) => void>()
  readonly #onPublish: (rev: number) => void

  /** `onPublish` runs before subscribers, once per published revision. */
  constructor(onPublish: (rev: number) => void) {
    this.#onPublish = onPublish
  }

  /** The current revision. */
  get rev(): number {
    return this.#rev
  }

  /** A registration changed: a new revision, published on the next microtask. */
  bump(): void {
    this.#rev++
    this.schedule()
  }

  /** Watch a scope whose `when` may change; `visible` is what subscribers last saw. */
  track(scope: ScopeImpl, visible: boolean): void {
    if (!scope.disposed && !this.#conditional.has(scope)) this.#conditional.set(scope, visible)
  }

  /** Stop watching a disposed scope. */
  untrack(scope: ScopeImpl): void {
    this.#conditional.delete(scope)
  }

  /** Publish on the next microtask (no-op when nothing changed by then). */
  schedule(): void {
    if (this.#scheduled) return
    this.#scheduled = true
    queueMicrotask(() => this.#flush())
  }

  subscribe(listener: (rev: number) => void): () => void {
    this.#listeners.add(listener)
    return () => {
      this.#listeners.delete(listener)
    }
  }

  #flush(): void {
    this.#scheduled = false
    let hiddenOrShown = false
    for (const [scope, was] of this.#conditional) {
      const now = scope.visible()
      if (now !== was) {
        this.#conditional.set(scope, now)
        hiddenOrShown = true
      }
    }
    // Tools that vanished with their scope are gone since the older revision (a call carrying it
    // is answered stale).
    if (hiddenOrShown) this.#rev++
    if (this.#rev === this.#published) return
    this.#published = this.#rev
    const rev = this.#rev
    this.#onPublish(rev)
    for (const listener of [...this.#listeners]) {
      try {
        listener(rev)
      } catch (err) {
        console.error('[toolmark] a subscriber threw', err)
      }
    }
  }
}

/**
 * In development, a `tool_budget_exceeded` warning when more tools are visible than `budget`; the
 * registry checks on each published revision (once per revision: `Revisions` publishes each once).
 */
export function checkBudget(host: {
  readonly dev: boolean
  readonly budget: number
  manifest(): { readonly tools: readonly unknown[] }
  warn(code: 'tool_budget_exceeded', message: string): void
}): void {
  if (!host.dev) return
  // Apart from the cheap test above, so that bundlers see a constant and drop the rest.
  if (process.env.NODE_ENV === 'production') return
  const visible = host.manifest().tools.length
  if (visible > host.budget)
    host.warn('tool_budget_exceeded', `${visible} visible tools exceed the budget of ${host.budget}`)
}
