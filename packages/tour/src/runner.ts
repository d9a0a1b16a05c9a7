import type { ConsumerHost, ToolHandle, Toolmark, ToolResult } from '@toolmark/core'
import { fromJsonSchema, ok } from '@toolmark/core'

/** One step of a tour: a tool, its input and what to tell the user. */
export interface TourStep {
  /** Full tool name (`challenges.create.fill`). */
  tool: string
  /** The input the step runs the tool with (default `{}`). */
  input?: unknown
  /** User-facing text of the step, announced politely (`aria-live`). */
  text: string
  /** Highlight this parameter's anchor instead of the tool's. */
  param?: string
  /** Run the tool as soon as the step shows, without waiting for the user's click. */
  auto?: boolean
  /** Only show and explain (highlight the anchor), never run the tool. */
  showOnly?: boolean
}

/** A guided tour. */
export interface Tour {
  /** `^[A-Za-z0-9_-]+$`: what an agent passes to `tour.start`. */
  id: string
  /** User-facing title. */
  title: string
  /** LLM-facing: when to offer this tour ("show me how to create a challenge"). */
  description: string
  steps: readonly TourStep[]
}

/** How a tour ended. */
export type TourOutcome =
  | { status: 'completed'; tour: string }
  | { status: 'exited'; tour: string; step: number }
  /** A step's tool did not appear (or disappeared) within `waitForToolMs`. */
  | { status: 'tool_gone'; tour: string; step: number; tool: string }

/** What the overlay renders for a step. */
export interface TourView {
  tour: Tour
  /** Zero-based step index. */
  index: number
  step: TourStep
  /** The highlighted element (`tm.anchor`), or null. */
  anchor: Element | null
  /** The tool's current `state()`, sensitive values redacted. */
  state: unknown
  /** `idle` (waiting for the user), `running` (the call, incl. its confirmation, is open), or the last result. */
  phase: 'idle' | 'running' | 'failed'
  /** The last failed result of this step, for the message. */
  result?: ToolResult
  /** Run the step's tool (the overlay's primary button). Absent for `showOnly` steps. */
  run?: () => void
  /** Go to the next step without running the tool. */
  next: () => void
  /** Leave the tour. */
  exit: () => void
}

/** Renders tour steps. `domOverlay()` is the accessible default. */
export interface TourOverlay {
  show(view: TourView): void
  /** The tour ended: remove everything and restore focus. */
  close(): void
}

/** Options of `createTourRunner`. */
export interface TourRunnerOptions {
  tours: readonly Tour[]
  /** Renders steps; pass `domOverlay()` (from this module) or your own. */
  overlay: TourOverlay
  /**
   * How long a step waits for its tool to appear (a client-side navigation between steps) or to
   * come back, in ms. Default 5000; then the tour ends with `tool_gone`.
   */
  waitForToolMs?: number
  /** Called when a tour ends, however it was started (e.g. to tell the agent). */
  onEnd?: (outcome: TourOutcome) => void
  /** Register the `tour.start` tool so an agent can start a tour. Default true. */
  registerStartTool?: boolean
}

/** What `createTourRunner` returns. */
export interface TourRunner {
  /** Runs a tour to its end (at most one at a time: a running tour is exited first). */
  start(id: string): Promise<TourOutcome>
  /** Leaves the running tour, if any. */
  exit(): void
  /** The running tour and step, if any. */
  current(): { tour: string; step: number } | undefined
  /** Exits the running tour and removes `tour.start`. */
  dispose(): void
}

/**
 * A tour runner: walks the user through steps, each naming a tool and its input. For each step it
 * waits for the tool (it may arrive with a client-side navigation), highlights its anchor, shows its
 * redacted `state()`, and runs it as caller `tour` on the user's click (or at once for `auto`
 * steps); a consequential tool waits for the app's inline confirmation (tours are always inline).
 * A failed or rejected run stays on the step. Registers `tour.start` so an agent can start one.
 */
export function createTourRunner(tm: Toolmark, options: TourRunnerOptions): TourRunner {
  const tours = new Map(options.tours.map((t) => [t.id, t]))
  const waitMs = options.waitForToolMs ?? 5000
  let active:
    | { tour: Tour; index: number; end: (outcome: TourOutcome) => void; cleanup: (() => void)[] }
    | undefined
  let handle: ToolHandle | undefined
  // The runner's status for inspectors (the devtools), published through a consumer of its own.
  let host: ConsumerHost | undefined
  const release = tm.use((h) => {
    host = h
    return () => h.status('tour', undefined)
  })
  const say = (): void =>
    host?.status(
      'tour',
      active
        ? { state: 'running', tour: active.tour.id, step: active.index + 1, steps: active.tour.steps.length }
        : { state: 'idle', tours: [...tours.keys()] },
    )

  /** Visible, and not hidden from tours by the tool's `callers`. */
  const shown = (name: string): boolean => {
    const info = tm.info(name)
    return info?.visible === true && (info.callers === undefined || info.callers.includes('tour'))
  }

  /** Resolves true once `name` is visible, false after `waitMs` or when the tour ended. */
  const waitForTool = (name: string, run: typeof active): Promise<boolean> =>
    new Promise((resolve) => {
      if (shown(name)) return resolve(true)
      let done = false
      const finish = (value: boolean): void => {
        if (done) return
        done = true
        clearTimeout(timer)
        clearInterval(poll)
        unsubscribe()
        resolve(value)
      }
      const check = (): void => {
        if (active !== run) finish(false)
        else if (shown(name)) finish(true)
      }
      const unsubscribe = tm.subscribe(check)
      // Visibility can also change through a scope's `when` function without a new registration.
      const poll = setInterval(check, 100)
      const timer = setTimeout(() => finish(false), waitMs)
    })

  const showStep = async (run: NonNullable<typeof active>): Promise<void> => {
    const step = run.tour.steps[run.index]
    if (!step) return run.end({ status: 'completed', tour: run.tour.id })
    say()
    if (!(await waitForTool(step.tool, run))) {
      if (active === run)
        run.end({ status: 'tool_gone', tour: run.tour.id, step: run.index, tool: step.tool })
      return
    }
    if (active !== run) return
    const index = run.index
    const advance = (): void => {
      if (active !== run || run.index !== index) return
      for (const stop of run.cleanup.splice(0)) stop()
      run.index++
      void showStep(run)
    }
    const render = (phase: TourView['phase'], result?: ToolResult): void => {
      if (active !== run || run.index !== index) return
      const anchor = tm.anchor(step.tool, step.param)
      const view: TourView = {
        tour: run.tour,
        index,
        step,
        anchor,
        state: tm.state(step.tool),
        phase,
        next: advance,
        exit: () => run.end({ status: 'exited', tour: run.tour.id, step: index }),
      }
      if (result) view.result = result
      if (!step.showOnly && phase !== 'running') view.run = execute
      options.overlay.show(view)
    }
    let running = false
    const execute = (): void => {
      if (running || active !== run || run.index !== index) return
      running = true
      render('running')
      void tm.call(step.tool, step.input ?? {}, { caller: 'tour' }).then((result) => {
        running = false
        if (result.status === 'ok') advance()
        else render('failed', result)
      })
    }
    // The tool may go away while the step shows (the user navigated): wait for it to come back.
    let watching = false
    const unwatch = tm.subscribe(() => {
      if (active !== run || run.index !== index) return
      if (running || watching || shown(step.tool)) return render(running ? 'running' : 'idle')
      watching = true
      void waitForTool(step.tool, run).then((back) => {
        watching = false
        if (back) render('idle')
        else if (active === run && run.index === index)
          run.end({ status: 'tool_gone', tour: run.tour.id, step: index, tool: step.tool })
      })
    })
    run.cleanup.push(unwatch)
    render('idle')
    if (step.auto && !step.showOnly) execute()
  }

  const runner: TourRunner = {
    start(id) {
      const tour = tours.get(id)
      runner.exit()
      if (!tour) return Promise.resolve({ status: 'completed', tour: id } as TourOutcome)
      return new Promise<TourOutcome>((resolve) => {
        const run: NonNullable<typeof active> = {
          tour,
          index: 0,
          cleanup: [],
          end: (outcome) => {
            if (active !== run) return
            active = undefined
            say()
            for (const stop of run.cleanup.splice(0)) stop()
            options.overlay.close()
            options.onEnd?.(outcome)
            resolve(outcome)
          },
        }
        active = run
        void showStep(run)
      })
    },
    exit() {
      active?.end({ status: 'exited', tour: active.tour.id, step: active.index })
    },
    current: () => (active ? { tour: active.tour.id, step: active.index } : undefined),
    dispose() {
      runner.exit()
      handle?.dispose()
      handle = undefined
      release()
    },
  }

  if (options.registerStartTool !== false && tours.size > 0) {
    const ids = [...tours.keys()]
    handle = tm.register({
      name: 'tour.start',
      title: 'Start a guided tour',
      description: `Start a guided tour that shows the user, step by step on the page, how to do something. Use it when the user asks to be shown how. Tours: ${options.tours.map((t) => `${t.id} (${t.description})`).join('; ')}. Returns at once; the user walks through the tour.`,
      hints: { readOnly: true },
      input: fromJsonSchema<{ tour: string }>({
        type: 'object',
        properties: { tour: { type: 'string', enum: ids, description: 'The tour id' } },
        required: ['tour'],
        additionalProperties: false,
      }),
      run: ({ tour }) => {
        void runner.start(tour)
        return ok({ started: tour, steps: tours.get(tour)?.steps.length ?? 0 })
      },
    })
  }
  say()
  return runner
}
