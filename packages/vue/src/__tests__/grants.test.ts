import { ok, type ToolResult } from '@toolmark/core'
import { createGrantStore } from '@toolmark/core/grants'
import { describe, expect, it } from 'vitest'
import { defineComponent, h, type PropType } from 'vue'
import { ConfirmationCard, type GrantStore, GrantsList, usePendingConfirmations, useTool } from '../index.ts'
import { flush, setup } from './utils.ts'

const Note = defineComponent({
  setup() {
    useTool({
      name: 'notes.add',
      title: 'Add note',
      description: 'Add a note',
      hints: { consequential: true },
      grantable: true,
      run: () => ok('added'),
    })
    return () => null
  },
})

const Page = defineComponent({
  props: { grants: { type: Object as PropType<GrantStore>, required: true } },
  setup(props) {
    const { items } = usePendingConfirmations()
    return () => [
      h(Note),
      ...items.value.map((item) =>
        h(ConfirmationCard, { key: item.confirmId, confirmation: item, grantDays: 7 }),
      ),
      h(GrantsList, { grants: props.grants }),
    ]
  },
})

describe('grants', () => {
  it('a grantable card offers the choice; "always" remembers it, the list shows it and Revoke makes it ask again', async () => {
    const grants = createGrantStore()
    const { tm, render } = setup({ grants })
    const wrapper = render(Page, { grants })
    await flush()
    expect(wrapper.find('[data-testid="grants-empty"]').exists()).toBe(true)
    const first = await tm.call('notes.add', {}, { caller: 'inapp', conversation: 'c1' })
    expect(first.status).toBe('needs_confirmation')
    await flush()
    const radios = wrapper.findAll('input[type="radio"]')
    expect(radios.map((r) => r.element.parentElement?.textContent)).toEqual([
      'Allow once',
      'Allow for this conversation',
      'Always allow for 7 days',
    ])
    expect((radios[0]!.element as HTMLInputElement).checked).toBe(true)
    await radios[2]!.trigger('change')
    await wrapper.find('[data-toolmark-primary]').trigger('click')
    await flush()
    expect(grants.list()).toEqual([expect.objectContaining({ tool: 'notes.add', caller: 'inapp' })])
    expect(wrapper.find('[data-testid="grants"]').text()).toContain('Add note')
    expect(wrapper.find('[data-testid="grants"]').text()).toContain('Allowed for the in-app agent, until')

    let second: ToolResult = await tm.call('notes.add', {}, { caller: 'inapp' })
    expect(second).toEqual(ok('added'))
    await flush()
    expect(wrapper.find('[data-testid="confirmation-card"]').exists()).toBe(false)

    await wrapper.find('button[aria-label="Revoke Add note"]').trigger('click')
    await flush()
    expect(grants.list()).toEqual([])
    expect(wrapper.find('[data-testid="grants-empty"]').exists()).toBe(true)
    second = await tm.call('notes.add', {}, { caller: 'inapp' })
    expect(second.status).toBe('needs_confirmation')
  })

  it('approving with the default choice remembers nothing', async () => {
    const grants = createGrantStore()
    const { tm, render } = setup({ grants })
    const wrapper = render(Page, { grants })
    await flush()
    await tm.call('notes.add', {}, { caller: 'inapp' })
    await flush()
    expect(wrapper.findAll('input[type="radio"]')).toHaveLength(2)
    await wrapper.find('[data-toolmark-primary]').trigger('click')
    await flush()
    expect(grants.list()).toEqual([])
  })
})
