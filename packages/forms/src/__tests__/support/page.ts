// Bundled by esbuild for the Chromium tests: the registry, the DOM binding, and two small apps
// with controlled inputs (React state, Vue v-model) to fill through the DOM.

import { createToolmark } from '@toolmark/core'
import { createElement, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { createApp, h, ref, vModelCheckbox, vModelSelect, vModelText, withDirectives } from 'vue'
import { agentSubmit, registerDomForm, scanForm } from '../../dom-entry.ts'

function ReactForm() {
  const [title, setTitle] = useState('')
  const [agree, setAgree] = useState(false)
  const [level, setLevel] = useState('easy')
  return createElement(
    'div',
    null,
    createElement(
      'form',
      { id: 'react-form', name: 'react', onSubmit: (e: Event) => e.preventDefault() },
      createElement('input', {
        name: 'title',
        value: title,
        onChange: (e: { target: HTMLInputElement }) => setTitle(e.target.value),
      }),
      createElement('input', {
        name: 'agree',
        type: 'checkbox',
        checked: agree,
        onChange: (e: { target: HTMLInputElement }) => setAgree(e.target.checked),
      }),
      createElement(
        'select',
        {
          name: 'level',
          value: level,
          onChange: (e: { target: HTMLSelectElement }) => setLevel(e.target.value),
        },
        createElement('option', { value: 'easy' }, 'Easy'),
        createElement('option', { value: 'hard' }, 'Hard'),
      ),
    ),
    createElement('output', { id: 'react-state' }, JSON.stringify({ title, agree, level })),
  )
}

const VueForm = {
  setup() {
    const title = ref('')
    const agree = ref(false)
    const level = ref('easy')
    return () =>
      h('div', [
        h('form', { id: 'vue-form', name: 'vue', onSubmit: (e: Event) => e.preventDefault() }, [
          withDirectives(
            h('input', { name: 'title', 'onUpdate:modelValue': (v: string) => (title.value = v) }),
            [[vModelText, title.value]],
          ),
          withDirectives(
            h('input', {
              name: 'agree',
              type: 'checkbox',
              'onUpdate:modelValue': (v: boolean) => (agree.value = v),
            }),
            [[vModelCheckbox, agree.value]],
          ),
          withDirectives(
            h('select', { name: 'level', 'onUpdate:modelValue': (v: string) => (level.value = v) }, [
              h('option', { value: 'easy' }, 'Easy'),
              h('option', { value: 'hard' }, 'Hard'),
            ]),
            [[vModelSelect, level.value]],
          ),
        ]),
        h(
          'output',
          { id: 'vue-state' },
          JSON.stringify({ title: title.value, agree: agree.value, level: level.value }),
        ),
      ])
  },
}

function mountReact(el: Element): void {
  createRoot(el).render(createElement(ReactForm))
}
function mountVue(el: Element): void {
  createApp(VueForm).mount(el)
}

Object.assign(window, { createToolmark, registerDomForm, agentSubmit, scanForm, mountReact, mountVue })
;(window as unknown as { ready: boolean }).ready = true
