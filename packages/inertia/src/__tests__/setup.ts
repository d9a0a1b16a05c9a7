import { environment } from '@toolmark/core/adapter'
import { afterEach } from 'vitest'

afterEach(async () => {
  const { cleanup } = await import('@testing-library/react')
  cleanup()
  environment.setIsServer(undefined)
})
