/**
 * What docs/framework/next.md tells a newcomer to do, read from the page itself: the commands of its
 * shell blocks, the files of its code blocks and the message it says to type. The adoption test runs
 * exactly these, so a change of the guide is a change of the test.
 */

/** One fenced code block: its language, the rest of its info string, and its text. */
export interface Block {
  lang: string
  info: string
  code: string
}

/** Every fenced code block of a Markdown page, in order. */
export function blocksOf(markdown: string): Block[] {
  return [...markdown.matchAll(/^```(\w*)([^\n]*)\n([\s\S]*?)^```/gm)].map((m) => ({
    lang: m[1] ?? '',
    info: (m[2] ?? '').trim(),
    code: m[3] ?? '',
  }))
}

/** A path a code block names on its first line: `// app/providers.tsx` or `// app/x/route.ts: what it is`. */
const FILE_LINE =
  /^\/\/ ((?:[\w.-]+|\[\.{3}\w+\]|\[\w+\])(?:\/(?:[\w.-]+|\[\.{3}\w+\]|\[\w+\]))*\.tsx?)(?::.*)?$/

/**
 * The files the guide has the reader create, by the name on each block's first line (as
 * docs/scripts/check-code.mjs names them). A name given twice is an error: the reader could not tell
 * which one to keep.
 */
export function guideFiles(markdown: string): Map<string, string> {
  const files = new Map<string, string>()
  for (const block of blocksOf(markdown)) {
    if (block.lang !== 'ts' && block.lang !== 'tsx') continue
    const path = FILE_LINE.exec(block.code.split('\n', 1)[0] ?? '')?.[1]
    if (!path) continue
    if (files.has(path)) throw new Error(`The guide shows ${path} twice`)
    files.set(path, block.code)
  }
  return files
}

/** The shell commands of the guide's `sh` blocks, `\` continuations joined, in order. */
export function guideCommands(markdown: string): string[] {
  return blocksOf(markdown)
    .filter((block) => block.lang === 'sh')
    .flatMap((block) => block.code.replace(/\\\n\s*/g, ' ').split('\n'))
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
}

/** The one command of the guide that starts with `prefix`. */
export function guideCommand(markdown: string, prefix: string): string {
  const found = guideCommands(markdown).filter((command) => command.startsWith(prefix))
  if (found.length !== 1) throw new Error(`The guide has ${found.length} commands starting with "${prefix}"`)
  return found[0]!
}

/** The message the guide says to type in the chat (`type **…** in the chat`). */
export function guideMessage(markdown: string): string {
  const found = /type \*\*(.+?)\*\* in the chat/.exec(markdown)?.[1]
  if (!found) throw new Error('The guide names no message to type in the chat')
  return found
}

/** The heading the guide says the page shows once the card is approved (`the heading turns to "…"`). */
export function guideOutcome(markdown: string): string {
  const found = /the heading turns to "(.+?)"/.exec(markdown)?.[1]
  if (!found) throw new Error('The guide names no heading to expect')
  return found
}
