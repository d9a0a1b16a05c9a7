import { createInertiaApp, router } from '@inertiajs/react'
import { createToolmark } from '@toolmark/core'
import { getClientId } from '@toolmark/core/bridge'
import { xsrfToken } from '@toolmark/core/bridge/echo'
import { bindInertia } from '@toolmark/inertia'
import { InertiaToolmark, pageScoped } from '@toolmark/inertia/react'
import { ToolmarkProvider } from '@toolmark/react'
import Echo from 'laravel-echo'
import Pusher from 'pusher-js'
import { createRoot } from 'react-dom/client'
import { Layout } from './Layout.tsx'

const tm = createToolmark()
const inertia = bindInertia(tm, {
  router,
  echo: {
    // Shared props `toolmark: { userId, conversationId, broadcaster }` come from HandleInertiaRequests.
    echo: (p) =>
      new Echo({
        broadcaster: 'reverb',
        ...(p.broadcaster as { key: string; wsHost: string; wsPort: number }),
        wssPort: p.broadcaster?.wsPort as number,
        forceTLS: false,
        enabledTransports: ['ws'],
        authEndpoint: '/broadcasting/auth',
        auth: { headers: { 'X-XSRF-TOKEN': xsrfToken() } },
        Pusher,
      }),
  },
})
// For the end-to-end tests and devtools: the registry and this page load's clientId.
Object.assign(window, { __toolmark: { tm, clientId: getClientId() } })

const pages = import.meta.glob('./Pages/**/*.tsx', { eager: true })

void createInertiaApp({
  resolve: pageScoped((name: string) => pages[`./Pages/${name}.tsx`] as never),
  layout: () => Layout,
  setup({ el, App, props }) {
    createRoot(el).render(
      <ToolmarkProvider toolmark={tm}>
        <InertiaToolmark binding={inertia}>
          <App {...props} />
        </InertiaToolmark>
      </ToolmarkProvider>,
    )
  },
})
