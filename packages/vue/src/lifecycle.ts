import { type EffectScope, getCurrentInstance, getCurrentScope, onMounted } from 'vue'

/**
 * Runs `start` on mount inside a component (never during server rendering), or right away inside a
 * bare `effectScope`; in both cases in that scope, so its watchers stop with it. Outside any scope it
 * runs `start` once and, in development, warns that nothing will ever clean it up.
 */
export function onClientStart(start: () => void, hook: string, dev: boolean): void {
  const scope: EffectScope | undefined = getCurrentScope()
  if (!scope) {
    if (dev) {
      console.warn(
        `[toolmark] ${hook}() was called outside a component setup() or effectScope(): it is never disposed. ` +
          'Call it in setup(), or inside effectScope().run() and stop the scope when done.',
      )
    }
    start()
    return
  }
  if (getCurrentInstance()) onMounted(() => scope.run(start))
  else start()
}
