#!/usr/bin/env node
// A package's export check: `attw --pack . --profile esm-only` (Are the Types Wrong), run from the package's
// folder, with any extra attw options passed through. Our packages are ESM-only, so the profile ignores
// the node10 and node16-from-CommonJS resolutions, yet attw still prints them ("(ignored) 💀 Resolution
// failed" for each entry point). This prints one line when every checked resolution passes, and on a failure
// attw's report without the ignored rows; the exit code is attw's either way.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const args = [
  '--pack',
  '.',
  '--profile',
  'esm-only',
  '--format',
  'ascii',
  '--no-color',
  ...process.argv.slice(2),
]
// The package's own devDependency (each package pins @arethetypeswrong/cli), else the one on PATH.
const local = join('node_modules', '.bin', 'attw')
const attw = spawnSync(existsSync(local) ? local : 'attw', args, {
  encoding: 'utf8',
  shell: process.platform === 'win32',
})
if (attw.error) {
  process.stderr.write(`attw could not start: ${attw.error.message}\n`)
  process.exit(1)
}
const name = JSON.parse(readFileSync('package.json', 'utf8')).name
if (attw.status === 0) {
  const entries = attw.stdout.split('\n').filter((line) => /^"[^"]+"$/.test(line.trim())).length
  console.log(
    `attw ${name}: ${entries} entry points resolve for node16 (ESM) and bundlers (ESM-only package)`,
  )
} else {
  const report = `${attw.stdout}\n${attw.stderr}`
    .split('\n')
    .filter((line) => !line.includes('(ignored'))
    .join('\n')
  process.stderr.write(`${report.trim()}\nattw ${name}: the package's exports are wrong (see above)\n`)
}
process.exit(attw.status ?? 1)
