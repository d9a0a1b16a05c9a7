import { createConfirmQueue, ok, type ToolResult } from '@toolmark/core'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { defineComponent, h, type PropType } from 'vue'
import * as z from 'zod'
import {
  ConfirmationCard,
  type ConfirmQueue,
  type PendingConfirmations,
  useConfirmQueue,
  usePendingConfirmations,
  useScope,
  useTool,
} from '../index.ts'
import { flush, setup } from './utils.ts'

const Target = z.object({ name: z.string() })

const Remove = defineComponent({
  props: { onRun: { type: Function as PropType<(name: string) => void>, required: true } },
  setup(props) {
    useTool({
      name: 'remove',
      description: 'Delete a challenge',
      title: 'Delete challenge',
      input: Target,
      hints: { destructive: true },
      summary: ({ name }) => `Delete "${name}"`,
      run: ({ name }) => {
        props.onRun(name)
        return ok({ deleted: name })
      },
    })
    return () => null
  },
})

const Publish = defineComponent({
  setup() {
    useTool({
      name: 'publish',
      description: 'Publish a challenge',
      input: Target,
      hints: { consequential: true },
      run: ({ name }) => ok({ published: name }),
    })
    return () => null
  },
})

const Board = defineComponent({
  setup() {
    useScope('board')
    return () => h(Publish)
  },
})

const PendingCards = defineComponent({
  props: { onView: { type: Function as PropType<(view: PendingConfirmations) => void>, default: () => {} } },
  setup(props) {
    const view = usePendingConfirmations()
    props.onView(view)
    return () =>
      view.items.value.map((item) => h(ConfirmationCard, { key: item.confirmId, confirmation: item }))
  },
})

const QueueCards = defineComponent({
  props: { queue: { type: Object as PropType<ConfirmQueue>, required: true } },
  setup(props) {
    const { items } = useConfirmQueue(props.queue)
    return () => items.value.map((item) => h(ConfirmationCard, { key: item.confirmId, confirmation: item }))
  },
})

const Page = defineComponent({
  props: {
    tools: { type: Array as PropType<string[]>, default: () => [] },
    onRun: { type: Function as PropType<(name: string) => void>, default: () => {} },
  },
  setup(props) {
    return () => [
      props.tools.includes('remove') ? h(Remove, { onRun: props.onRun }) : null,
      props.tools.includes('publish') ? h(Publish) : null,
      props.tools.includes('board') ? h(Board) : null,
      h(PendingCards),
    ]
  },
})

afterEach(() => {
  vi.useRealTimers()
})

const settledResults = (tm: ReturnType<typeof setup>['tm']) => {
  const settled: ToolResult[] = []
  tm.events.on('confirm', (e) => {
    if (e.phase === 'settled' && e.result) settled.push(e.result)
  })
  return settled
}

describe('usePendingConfirmations + ConfirmationCard', () => {
  it('renders a destructive deferred request and runs the tool once on Delete', async () => {
    const { tm, render } = setup()
    const onRun = vi.fn()
    const settled = settledResults(tm)
    const wrapper = render(Page, { tools: ['remove'], onRun })
    const result = await tm.call('remove', { name: 'Robotics' }, { caller: 'inapp' })
    expect(result).toMatchObject({ status: 'needs_confirmation', summary: 'Delete "Robotics"' })
    await flush()
    expect(wrapper.get('h3').text()).toBe('Delete challenge')
    expect(wrapper.get('[data-testid="confirmation-summary"]').text()).toBe('Delete "Robotics"')
    expect(wrapper.get('[data-testid="confirmation-target"]').text()).toBe('Robotics')
    expect(wrapper.get('[data-testid="confirmation-warning"]').text()).toBe('This action cannot be undone.')
    // Reject first, then the one primary button: the demos' order.
    const buttons = wrapper
      .findAll('button')
      .map((b) => [b.text(), b.attributes('data-toolmark-primary') !== undefined])
    expect(buttons).toEqual([
      ['Reject', false],
      ['Delete', true],
    ])
    await wrapper.findAll('button')[1]!.trigger('click')
    await flush()
    expect(onRun).toHaveBeenCalledTimes(1)
    expect(onRun).toHaveBeenCalledWith('Robotics')
    expect(settled).toEqual([{ status: 'ok', data: { deleted: 'Robotics' } }])
    expect(wrapper.find('[data-testid="confirmation-card"]').exists()).toBe(false)
  })

  it('rejects from the card: the tool does not run and the card disappears', async () => {
    const { tm, render } = setup()
    const settled = settledResults(tm)
    const wrapper = render(Page, { tools: ['publish'] })
    await tm.call('publish', { name: 'Robotics' }, { caller: 'inapp' })
    await flush()
    expect(wrapper.findAll('button').map((b) => b.text())).toEqual(['Reject', 'Approve'])
    expect(wrapper.find('[data-testid="confirmation-warning"]').exists()).toBe(false)
    await wrapper.findAll('button')[0]!.trigger('click')
    await flush()
    expect(settled).toEqual([{ status: 'cancelled', by: 'operator' }])
    expect(wrapper.find('[data-testid="confirmation-card"]').exists()).toBe(false)
  })

  it('drops the pending confirmation and its card when the scope unmounts', async () => {
    const { tm, render } = setup()
    const wrapper = render(Page, { tools: ['board'] })
    const result = await tm.call('board.publish', { name: 'Robotics' }, { caller: 'inapp' })
    await flush()
    expect(wrapper.findAll('[data-testid="confirmation-card"]')).toHaveLength(1)
    await wrapper.setProps({ tools: [] })
    await flush()
    expect(wrapper.find('[data-testid="confirmation-card"]').exists()).toBe(false)
    const confirmId = result.status === 'needs_confirmation' ? result.confirmId : ''
    expect(await tm.confirmPending(confirmId, { approved: true })).toMatchObject({
      code: 'confirmation_expired',
    })
  })

  it('drops the pending confirmation and its card when the tool component unmounts (no scope)', async () => {
    const { tm, render } = setup()
    const outcomes: string[] = []
    tm.events.on('confirm', (e) => {
      if (e.phase === 'settled') outcomes.push(e.outcome)
    })
    const wrapper = render(Page, { tools: ['publish'] })
    await tm.call('publish', { name: 'Robotics' }, { caller: 'inapp' })
    await flush()
    expect(wrapper.findAll('[data-testid="confirmation-card"]')).toHaveLength(1)
    await wrapper.setProps({ tools: [] })
    await flush()
    expect(wrapper.find('[data-testid="confirmation-card"]').exists()).toBe(false)
    expect(outcomes).toEqual(['expired'])
  })

  it('answers by id and per item, with edited input', async () => {
    const { tm, render } = setup()
    let view: PendingConfirmations | undefined
    render(
      defineComponent({
        setup: () => () => [h(Publish), h(PendingCards, { onView: (v: PendingConfirmations) => (view = v) })],
      }),
    )
    await tm.call('publish', { name: 'a' }, { caller: 'inapp' })
    await tm.call('publish', { name: 'b' }, { caller: 'inapp' })
    expect(view?.items.value.map((i) => i.input)).toEqual([{ name: 'a' }, { name: 'b' }])
    const [first, second] = view?.items.value ?? []
    expect(await first!.approve({ name: 'edited' })).toEqual({ status: 'ok', data: { published: 'edited' } })
    expect(await view!.reject(second!.confirmId)).toEqual({ status: 'cancelled', by: 'operator' })
    expect(view?.items.value).toEqual([])
  })

  it('counts down to expiresAt', async () => {
    vi.useFakeTimers({
      now: new Date('2026-01-01T00:00:00Z'),
      toFake: ['Date', 'setInterval', 'clearInterval'],
    })
    const { tm, render } = setup()
    const wrapper = render(Page, { tools: ['publish'] })
    await tm.call('publish', { name: 'Robotics' }, { caller: 'inapp' })
    await flush()
    expect(wrapper.get('[data-testid="confirmation-countdown"]').text()).toBe('Expires in 10:00')
    vi.advanceTimersByTime(61_000)
    await flush()
    expect(wrapper.get('[data-testid="confirmation-countdown"]').text()).toBe('Expires in 8:59')
  })
})

describe('useConfirmQueue', () => {
  it('shows inline requests and resolves the waiting call on Approve', async () => {
    const queue = createConfirmQueue()
    const { tm, render } = setup({ confirm: queue.handler })
    const wrapper = render(
      defineComponent({
        setup: () => () => [h(Publish), h(QueueCards, { queue })],
      }),
    )
    const result = tm.call('publish', { name: 'Robotics' }, { caller: 'tour' })
    await flush()
    expect(wrapper.findAll('[data-testid="confirmation-card"]')).toHaveLength(1)
    await wrapper.get('button[data-toolmark-primary]').trigger('click')
    expect(await result).toEqual({ status: 'ok', data: { published: 'Robotics' } })
    await flush()
    expect(wrapper.find('[data-testid="confirmation-card"]').exists()).toBe(false)
  })
})

describe('ConfirmationCard for keyboards and screen readers', () => {
  const Chat = defineComponent({
    props: { autoFocus: { type: Boolean, default: false } },
    setup(props) {
      const { items } = usePendingConfirmations()
      return () => [
        h('input', { 'aria-label': 'Message', id: 'message' }),
        ...items.value.map((item) =>
          h(ConfirmationCard, { key: item.confirmId, confirmation: item, autoFocus: props.autoFocus }),
        ),
      ]
    },
  })
  const ChatPage = defineComponent({
    props: { autoFocus: { type: Boolean, default: false } },
    setup(props) {
      return () => [h(Remove, { onRun: () => {} }), h(Chat, { autoFocus: props.autoFocus })]
    },
  })

  async function ask(autoFocus: boolean) {
    const { tm, render } = setup()
    const settled = settledResults(tm)
    const wrapper = render(ChatPage, { autoFocus })
    await flush()
    const input = document.getElementById('message') as HTMLInputElement
    input.focus()
    await tm.call('remove', { name: 'Robotics' }, { caller: 'inapp' })
    await flush()
    return { wrapper, input, settled }
  }

  it('is an alertdialog labelled by its title and described by its summary; the countdown is not live', async () => {
    const { wrapper } = await ask(false)
    const card = wrapper.get('[role="alertdialog"]').element
    const title = document.getElementById(card.getAttribute('aria-labelledby') ?? '')
    const summary = document.getElementById(card.getAttribute('aria-describedby') ?? '')
    expect(title?.textContent).toBe('Delete challenge')
    expect(summary?.textContent).toBe('Delete "Robotics"')
    const timer = wrapper.get('[role="timer"]')
    expect(timer.attributes('aria-live')).toBe('off')
  })

  it('Escape inside the card rejects it; without autoFocus focus stays in the input', async () => {
    const { wrapper, input, settled } = await ask(false)
    expect(document.activeElement).toBe(input)
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }))
    await flush()
    expect(settled).toEqual([])
    await wrapper.get('button').trigger('keydown', { key: 'Escape' })
    await flush()
    expect(settled).toEqual([{ status: 'cancelled', by: 'operator' }])
    expect(wrapper.find('[role="alertdialog"]').exists()).toBe(false)
  })

  it('autoFocus moves focus to Reject and gives it back to the input once the card settles', async () => {
    const { wrapper, input } = await ask(true)
    const reject = wrapper.findAll('button').find((b) => b.text() === 'Reject')!
    expect(document.activeElement).toBe(reject.element)
    await reject.trigger('click')
    await flush()
    expect(wrapper.find('[role="alertdialog"]').exists()).toBe(false)
    expect(document.activeElement).toBe(input)
  })

  it('an undoable tool says it can be undone from the page instead of the warning', async () => {
    const { tm, render } = setup()
    const Undoable = defineComponent({
      setup() {
        useTool({
          name: 'archive',
          description: 'Archive a challenge',
          input: Target,
          hints: { destructive: true },
          undoable: true,
          run: () => ok(),
        })
        return () => h(PendingCards)
      },
    })
    const wrapper = render(Undoable)
    await flush()
    await tm.call('archive', { name: 'Robotics' }, { caller: 'inapp' })
    await flush()
    expect(wrapper.get('[data-testid="confirmation-undo-note"]').text()).toBe(
      'This action can be undone from the page.',
    )
    expect(wrapper.find('[data-testid="confirmation-warning"]').exists()).toBe(false)
  })
})
