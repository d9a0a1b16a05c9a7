// Sums the vitest JSON reports the check wrote to test-results/ into one closing line.
import { readdirSync, readFileSync } from 'node:fs'

const dir = new URL('../test-results/', import.meta.url)
let passed = 0
let failed = 0
let skipped = 0
for (const name of readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()) {
  const report = JSON.parse(readFileSync(new URL(name, dir), 'utf8'))
  passed += report.numPassedTests
  failed += report.numFailedTests
  skipped += report.numPendingTests + (report.numTodoTests ?? 0)
  console.log(`${name}: ${report.numPassedTests} passed, ${report.numFailedTests} failed`)
}
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`)
process.exit(failed > 0 || passed === 0 ? 1 : 0)
