import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { renderWirePhp, WIRE_PHP_PATH } from '../../scripts/php-wire.ts'

describe('the PHP package reads the same wire constants', () => {
  it('has Wire.php as generate:php writes it today', () => {
    const checkedIn = readFileSync(new URL(`../../../../${WIRE_PHP_PATH}`, import.meta.url), 'utf8')
    // On a difference: `pnpm --filter @toolmark/protocol generate:php`, then commit Wire.php.
    expect(checkedIn).toBe(renderWirePhp())
  })
})
