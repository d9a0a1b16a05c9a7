// Sums the test reports the check wrote to test-results/ into one closing line: the vitest JSON
// reports (*.json) and PHPUnit's JUnit log (*.junit.xml, the Laravel package's tests).
import { readdirSync, readFileSync } from 'node:fs'

const dir = new URL('../test-results/', import.meta.url)
let passed = 0
let failed = 0
let skipped = 0
for (const name of readdirSync(dir).sort()) {
  let ok = 0
  let bad = 0
  let skip = 0
  if (name.endsWith('.json')) {
    const report = JSON.parse(readFileSync(new URL(name, dir), 'utf8'))
    ok = report.numPassedTests
    bad = report.numFailedTests
    skip = report.numPendingTests + (report.numTodoTests ?? 0)
  } else if (name.endsWith('.junit.xml')) {
    // The first <testsuite> element is the run's total.
    const xml = readFileSync(new URL(name, dir), 'utf8')
    const suite = xml.match(/<testsuite\b[^>]*>/)?.[0] ?? ''
    const count = (attribute) => Number(suite.match(new RegExp(`\\b${attribute}="(\\d+)"`))?.[1] ?? 0)
    bad = count('failures') + count('errors')
    skip = count('skipped')
    ok = count('tests') - bad - skip
  } else continue
  passed += ok
  failed += bad
  skipped += skip
  console.log(`${name}: ${ok} passed, ${bad} failed`)
}
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`)
process.exit(failed > 0 || passed === 0 ? 1 : 0)
