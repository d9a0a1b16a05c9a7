#!/usr/bin/env node
// `npm run pack:packages`: the @toolmark/* packages as npm tarballs, from a clone. They are not on the npm
// registry yet, so `npm install @toolmark/core` answers 404; this builds every public package, packs each
// into <clone>/packs/ (workspace dependencies become their version, as on publish) and prints
// `npm install` lines that install them into another project from those files: each line lists the
// tarballs of every @toolmark package the ones it installs depend on, since npm cannot fetch those.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { installLines, publicPackages, tarballName, withDependencies } from './workspace-packages.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const turbo = join(root, 'node_modules', '.bin', 'turbo')
if (!existsSync(turbo)) {
  process.stderr.write('The workspace is not installed: run `npm run setup` in the clone first.\n')
  process.exit(1)
}
const packages = publicPackages(root)

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
  ['run', 'build', ...[...packages.keys()].map((name) => `--filter=${name}`), '--output-logs=errors-only'],
  root,
)
const out = join(root, 'packs')
rmSync(out, { recursive: true, force: true })
mkdirSync(out)
for (const { dir } of packages.values()) run('pnpm', ['pack', '--pack-destination', out], dir)

const tarballs = readdirSync(out).filter((f) => f.endsWith('.tgz'))
const missing = [...packages.values()].map(tarballName).filter((file) => !tarballs.includes(file))
if (missing.length > 0) {
  process.stderr.write(`pnpm pack wrote no ${missing.join(', ')} in ${out}.\n`)
  process.exit(1)
}
console.log(`\nPacked ${tarballs.length} packages into ${out}. In your project, install the ones you use:\n`)
for (const { label, command } of installLines(out, packages)) console.log(`${label}:\n  ${command}\n`)
console.log('npm cannot fetch a @toolmark package from the registry yet, so list the tarball of each one a')
console.log('package needs in the same `npm install`:')
for (const name of packages.keys()) {
  const needs = withDependencies([name], packages).filter((other) => other !== name)
  console.log(`  ${name}: ${needs.length > 0 ? needs.join(', ') : 'nothing else'}`)
}
