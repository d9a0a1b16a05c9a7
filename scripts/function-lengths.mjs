// Function-length report and check. Lists every function, method, accessor, constructor and arrow
// function of at least --min lines (default 60) in the given folders or files, longest first, and
// counts those of 60+ and 100+ lines. Lines run from the first to the last line of the body
// (signature included); nested functions count on their own and also inside their parent.
// Test files (__tests__, *.test.ts, *.test-d.ts) and declaration files are skipped.
//
//   node scripts/function-lengths.mjs packages/server/src
//   node scripts/function-lengths.mjs packages/server/src --max-100 0 --max-60 10   # exits 1 if over
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'

const args = process.argv.slice(2)
const roots = []
let min = 60
let max100 = Number.POSITIVE_INFINITY
let max60 = Number.POSITIVE_INFINITY
for (let i = 0; i < args.length; i++) {
  const arg = args[i]
  const value = () => {
    const n = Number(args[++i])
    if (!Number.isInteger(n) || n < 0) fail(`${arg} needs a whole number`)
    return n
  }
  if (arg === '--min') min = value()
  else if (arg === '--max-100') max100 = value()
  else if (arg === '--max-60') max60 = value()
  else if (arg === '--help' || arg === '-h') {
    console.log(
      'usage: node scripts/function-lengths.mjs <folder|file>... [--min N] [--max-100 N] [--max-60 N]',
    )
    process.exit(0)
  } else if (arg.startsWith('--')) fail(`unknown option ${arg}`)
  else roots.push(arg)
}
if (roots.length === 0) fail('name at least one folder or file')

function fail(message) {
  console.error(`function-lengths: ${message}`)
  process.exit(2)
}

function isTestPath(path) {
  return /(^|\/)__tests__(\/|$)/.test(path) || /\.test(-d)?\.tsx?$/.test(path) || path.endsWith('.d.ts')
}

function* sourceFiles(path) {
  const stat = statSync(path)
  if (stat.isFile()) {
    if (/\.(m?ts|tsx)$/.test(path) && !isTestPath(path)) yield path
    return
  }
  for (const entry of readdirSync(path).sort()) {
    if (entry === 'node_modules' || entry === 'dist' || entry === '__tests__') continue
    yield* sourceFiles(join(path, entry))
  }
}

function nameOf(node, source) {
  if (node.name) return node.name.getText(source)
  if (ts.isConstructorDeclaration(node)) return 'constructor'
  const parent = node.parent
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText(source)
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText(source)
  if (parent && ts.isPropertyDeclaration(parent)) return parent.name.getText(source)
  if (parent && ts.isCallExpression(parent))
    return `(callback of ${parent.expression.getText(source).slice(0, 40)})`
  return '(anonymous)'
}

function qualified(node, source) {
  const names = [nameOf(node, source)]
  for (let p = node.parent; p; p = p.parent) {
    if (ts.isClassLike(p) && p.name) {
      names.unshift(p.name.text)
      break
    }
  }
  return names.join('.')
}

const found = []
for (const root of roots) {
  for (const file of sourceFiles(root)) {
    const text = readFileSync(file, 'utf8')
    const kind = file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind)
    const visit = (node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line
        const lines = end - start + 1
        if (lines >= Math.min(min, 60)) {
          found.push({
            file: relative(process.cwd(), file),
            line: start + 1,
            lines,
            name: qualified(node, source),
          })
        }
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
}

found.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line)
for (const f of found.filter((f) => f.lines >= min)) {
  console.log(`${String(f.lines).padStart(5)}  ${f.file}:${f.line}  ${f.name}`)
}
const over100 = found.filter((f) => f.lines >= 100).length
const over60 = found.filter((f) => f.lines >= 60).length
console.log(`\n${over100} function(s) of 100+ lines, ${over60} of 60+ lines`)

const problems = []
if (over100 > max100) problems.push(`${over100} functions of 100+ lines (at most ${max100} allowed)`)
if (over60 > max60) problems.push(`${over60} functions of 60+ lines (at most ${max60} allowed)`)
if (problems.length > 0) {
  console.error(`function-lengths: ${problems.join('; ')}`)
  process.exit(1)
}
