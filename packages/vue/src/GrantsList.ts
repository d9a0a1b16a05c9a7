import type { GrantStore } from '@toolmark/core'
import { grantLabel } from '@toolmark/core/adapter'
import { defineComponent, h, type PropType } from 'vue'
import { useGrants } from './useGrants.ts'

/**
 * A small unstyled reference list of the user's grants (remembered approvals): each tool's heading, who
 * it lets through and for how long, and a Revoke button. Says so when there is none. Copy it or use it.
 */
// Pure: bundlers drop the list when only other exports are imported.
export const GrantsList = /* @__PURE__ */ defineComponent({
  name: 'GrantsList',
  props: {
    /** The grant store the registry was given (`createToolmark({ grants })`). */
    grants: { type: Object as PropType<GrantStore>, required: true },
  },
  setup(props) {
    const { grants, revoke } = useGrants(props.grants)
    return () =>
      grants.value.length === 0
        ? h('p', { 'data-testid': 'grants-empty' }, 'No approvals are remembered.')
        : h(
            'ul',
            { 'data-testid': 'grants' },
            grants.value.map((grant) => {
              const label = grantLabel(grant)
              return h('li', { key: grant.id, 'data-grant-id': grant.id }, [
                h('span', label.heading),
                ' ',
                h('span', label.detail),
                ' ',
                h(
                  'button',
                  {
                    type: 'button',
                    'aria-label': `Revoke ${label.heading}`,
                    onClick: () => void revoke(grant.id),
                  },
                  'Revoke',
                ),
              ])
            }),
          )
  },
})
