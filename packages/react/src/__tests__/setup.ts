import { environment } from '@toolmark/core/adapter'
import { afterEach } from 'vitest'

afterEach(async () => {
  // Imported lazily so a test file can install the fast-refresh runtime before react-dom loads.
  const { cleanup } = await import('@testing-library/react')
  cleanup()
  environment.setIsServer(undefined)
})
