/** One ```php block of a Markdown text and the 1-based line its code starts on. */
export interface PhpBlock {
  line: number
  code: string
}
/** The ```php blocks of a Markdown text. */
export function phpBlocks(markdown: string): PhpBlock[]
/** Lints every block with `php -l`. */
export function lintBlocks(
  blocks: PhpBlock[],
  php?: string,
): Array<PhpBlock & { ok: boolean; output: string }>
