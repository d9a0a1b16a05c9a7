import { afterEach } from 'vitest'

afterEach(async () => {
  const { cleanup } = await import('@testing-library/react')
  cleanup()
  // Every test starts as a new browser tab.
  if (typeof window !== 'undefined') delete (window as unknown as Record<symbol, unknown>)[TAB]
})

const TAB = Symbol.for('@toolmark/next.tab')
