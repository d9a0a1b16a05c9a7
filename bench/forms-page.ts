// Runs in Chromium (bundled by forms.ts): timings of form scanning, fills and tour steps, each
// beside a floor doing the bare DOM work by hand, measured in the same page.
import { createToolmark } from '@toolmark/core'
import { registerDomForm, scanForm } from '@toolmark/forms/dom'
import { createTourRunner, domOverlay, type TourOverlay, type TourView } from '@toolmark/tour'

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** A form with `n` fields of mixed kinds, each with a label. */
function makeForm(n: number): HTMLFormElement {
  const form = document.createElement('form')
  form.name = `f${n}`
  const kinds = ['text', 'email', 'number', 'date', 'checkbox', 'select', 'textarea', 'url']
  for (let i = 0; i < n; i++) {
    const kind = kinds[i % kinds.length]!
    const label = document.createElement('label')
    label.textContent = `Field ${i} `
    let el: HTMLElement
    if (kind === 'select') {
      const s = document.createElement('select')
      for (const v of ['a', 'b', 'c']) s.append(new Option(`Option ${v}`, v))
      el = s
    } else if (kind === 'textarea') el = document.createElement('textarea')
    else {
      const input = document.createElement('input')
      input.type = kind
      if (kind === 'number') input.min = '0'
      if (kind === 'text') input.maxLength = 80
      el = input
    }
    el.setAttribute('name', `field${i}`)
    if (i % 3 === 0) el.setAttribute('required', '')
    label.append(el)
    form.append(label)
  }
  document.body.append(form)
  return form
}

// Chromium coarsens performance.now() to 0.1 ms: time batches of BATCH runs, median per run.
const BATCH = 25

function time(fn: () => void, rounds: number): number {
  for (let i = 0; i < 20; i++) fn()
  const out: number[] = []
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now()
    for (let i = 0; i < BATCH; i++) fn()
    out.push((performance.now() - t0) / BATCH)
  }
  return median(out)
}

async function timeAsync(fn: () => Promise<unknown>, rounds: number): Promise<number> {
  for (let i = 0; i < 20; i++) await fn()
  const out: number[] = []
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now()
    for (let i = 0; i < BATCH; i++) await fn()
    out.push((performance.now() - t0) / BATCH)
  }
  return median(out)
}

export async function scan50(): Promise<[number, number]> {
  const form = makeForm(50)
  const ours = time(() => scanForm(form), 40)
  // Floor: read each field's name, type and label text by hand.
  const floor = time(() => {
    const out: unknown[] = []
    for (const el of form.elements) {
      const e = el as HTMLInputElement
      out.push([e.name, e.type, e.required, e.labels?.[0]?.textContent])
    }
  }, 40)
  form.remove()
  return [ours, floor]
}

export async function fill20(): Promise<[number, number]> {
  const form = makeForm(20)
  const tm = createToolmark()
  registerDomForm(tm, form, { description: 'bench' })
  let n = 0
  const input = (): Record<string, unknown> => {
    n++
    const values: Record<string, unknown> = {}
    for (const el of form.elements) {
      const e = el as HTMLInputElement
      if (e.type === 'checkbox') values[e.name] = n % 2 === 0
      else if (e.type === 'number') values[e.name] = n
      else if (e.type === 'date') values[e.name] = `2030-01-${String((n % 28) + 1).padStart(2, '0')}`
      else if (e.type === 'email') values[e.name] = `a${n}@example.org`
      else if (e.type === 'url') values[e.name] = `https://example.org/${n}`
      else if (e instanceof HTMLSelectElement) values[e.name] = ['a', 'b', 'c'][n % 3]
      else values[e.name] = `value ${n}`
    }
    return values
  }
  const ours = await timeAsync(() => tm.call(`f20.fill`, input(), { caller: 'inapp' }), 20)
  // Floor: set the same 20 values with the native setter and fire input + change by hand.
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!
  const floor = time(() => {
    n++
    for (const el of form.elements) {
      const e = el as HTMLInputElement
      if (e.type === 'checkbox') e.checked = !e.checked
      else if (e instanceof HTMLSelectElement) (e as HTMLSelectElement).value = ['a', 'b', 'c'][n % 3]!
      else if (e instanceof HTMLInputElement) setter.call(e, e.type === 'number' ? String(n) : e.value)
      else (e as HTMLTextAreaElement).value = `value ${n}`
      e.dispatchEvent(new Event('input', { bubbles: true }))
      e.dispatchEvent(new Event('change', { bubbles: true }))
    }
  }, 20)
  form.remove()
  return [ours, floor]
}

export async function tourStep(): Promise<[number, number]> {
  const tm = createToolmark()
  const buttons: HTMLButtonElement[] = []
  for (let i = 0; i < 40; i++) {
    const b = document.createElement('button')
    b.id = `b${i}`
    b.textContent = `Action ${i}`
    document.body.append(b)
    buttons.push(b)
    tm.register({
      name: `t${i}`,
      description: 'step',
      hints: { readOnly: true },
      anchors: { tool: `#b${i}` },
      state: () => ({ value: i }),
      run: () => undefined,
    })
  }
  const inner = domOverlay()
  let shown: (() => void) | undefined
  let view: TourView | undefined
  const overlay: TourOverlay = {
    show(v) {
      inner.show(v)
      view = v
      shown?.()
    },
    close: () => inner.close(),
  }
  const runner = createTourRunner(tm, {
    overlay,
    registerStartTool: false,
    tours: [
      {
        id: 't',
        title: 'T',
        description: 'd',
        steps: buttons.map((_, i) => ({ tool: `t${i}`, text: `Step ${i}` })),
      },
    ],
  })
  const next = (): Promise<void> =>
    new Promise((resolve) => {
      shown = resolve
      view!.next()
    })
  const started = new Promise<void>((r) => (shown = r))
  void runner.start('t')
  await started
  // Script work of one transition: from "Next" to the new step rendered (scroll, highlight, focus).
  const out: number[] = []
  for (let r = 0; r < 7; r++) {
    const t0 = performance.now()
    for (let i = 0; i < 5; i++) await next()
    out.push((performance.now() - t0) / 5)
  }
  runner.exit()
  // Floor: the same DOM change by hand (text, three buttons, highlight box, focus).
  const box = document.createElement('div')
  const dlg = document.createElement('div')
  document.body.append(box, dlg)
  const floor = time(() => {
    const r = buttons[5]!.getBoundingClientRect()
    box.style.cssText = `position:fixed;top:${r.top}px;left:${r.left}px;width:${r.width}px;height:${r.height}px`
    const bs = ['Do it', 'Next', 'Exit'].map((t) => {
      const b = document.createElement('button')
      b.textContent = t
      return b
    })
    dlg.replaceChildren(document.createTextNode('Step'), ...bs)
    bs[0]!.focus()
  }, 20)
  return [median(out), floor]
}

Object.assign(window, { bench: { scan50, fill20, tourStep }, ready: true })
