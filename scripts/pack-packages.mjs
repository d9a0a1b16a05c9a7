#!/usr/bin/env node
// `npm run pack:packages`: the @toolmark/* packages as npm tarballs, from a clone. They are not on the npm
// registry yet, so `npm install @toolmark/core` answers 404; this builds every public package, packs each
// into <clone>/packs/ (workspace dependencies become their version, as on publish) and prints the
// `npm install` line that installs them into another project from those files.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const turbo = join(root, 'node_modules', '.bin', 'turbo')
if (!existsSync(turbo)) {
  process.stderr.write('The workspace is not installed: run `npm run setup` in the clone first.\n')
  process.exit(1)
}
const dirs = readdirSync(join(root, 'packages'))
  .map((name) => join(root, 'packages', name))
  .filter((dir) => existsSync(join(dir, 'package.json')))
const manifest = (dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
const packages = dirs.filter((dir) => !manifest(dir).private)

function run(command, args, cwd) {
  try {
    execFileSync(command, args, {
      cwd,
      stdio: ['ignore', 2, 2],
      env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
    })
  } catch {
    process.stderr.write(`\`${command.split('/').pop()} ${args.join(' ')}\` failed (see above).\n`)
    process.exit(1)
  }
}

run(
  turbo,
  ['run', 'build', ...packages.map((dir) => `--filter=${manifest(dir).name}`), '--output-logs=errors-only'],
  root,
)
const out = join(root, 'packs')
rmSync(out, { recursive: true, force: true })
mkdirSync(out)
for (const dir of packages) run('pnpm', ['pack', '--pack-destination', out], dir)

const tarballs = readdirSync(out)
  .filter((f) => f.endsWith('.tgz'))
  .sort()
console.log(
  `\nPacked ${tarballs.length} packages into ${out}. In your project, install the ones you use, e.g.:\n`,
)
console.log(
  `  npm install ${join(out, tarballs.find((f) => f.startsWith('toolmark-core-')) ?? tarballs[0])} zod`,
)
console.log(
  '\nAn adapter needs @toolmark/core beside it (and @toolmark/next needs @toolmark/react): list their',
)
console.log('tarballs in the same `npm install`, since npm cannot fetch them from the registry.')
