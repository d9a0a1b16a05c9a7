/**
 * Writes packages/laravel/src/Generated/Wire.php from @toolmark/protocol (see php-wire.ts).
 *
 * Node 20 cannot run TypeScript, so `pnpm run generate:php` bundles this script with esbuild into
 * node_modules/.cache/toolmark/ and runs it with node from the package directory.
 */
import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { renderWirePhp, WIRE_PHP_PATH } from './php-wire.ts'

const target = resolve('../..', WIRE_PHP_PATH)
writeFileSync(target, renderWirePhp())
console.info(`wire constants written to ${target}`)
