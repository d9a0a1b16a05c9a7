import { createInertiaApp, router } from '@inertiajs/react'
import { getClientId } from '@toolmark/bridge'
import { createToolmark } from '@toolmark/core'
import { bindInertia } from '@toolmark/inertia'
import { InertiaToolmark, pageScoped } from '@toolmark/inertia/react'
import { ToolmarkProvider } from '@toolmark/react'
import { createRoot } from 'react-dom/client'
import { createEcho } from './echo.ts'
import { Layout } from './Layout.tsx'
import { NAVIGATION } from './navigation.ts'
// The other two demos' styles (apps/demo), shared as apps/next-demo shares them.
import '../../demo/src/styles.css'

const tm = createToolmark()
const inertia = bindInertia(tm, {
  router,
  navigation: NAVIGATION,
  echo: {
    // Shared props `toolmark: { userId, conversationId, broadcaster }` come from HandleInertiaRequests.
    echo: createEcho,
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
