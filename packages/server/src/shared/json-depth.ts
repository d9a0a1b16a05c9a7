/**
 * True when JSON text nests arrays and objects deeper than `max` levels (the root object or array is level 1),
 * found without parsing it: one pass, brackets inside strings not counted. Text deeper than the limit is refused
 * before `JSON.parse` spends time on it (a megabyte of nested arrays takes the parser ~150 ms, this ~3 ms).
 * Text that is not JSON is left to the parser, unless it is too deep by this count.
 */
export function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      i = stringEnd(text, i)
      if (i < 0) return false
    } else if (c === 0x5b || c === 0x7b) {
      depth++
      if (depth > max) return true
    } else if (c === 0x5d || c === 0x7d) {
      depth--
    }
  }
  return false
}

/** Where the string that opens at `open` ends (its closing quote), or -1 when it does not end. */
function stringEnd(text: string, open: number): number {
  for (let end = text.indexOf('"', open + 1); end >= 0; end = text.indexOf('"', end + 1)) {
    // A quote after an odd run of backslashes is escaped.
    let slashes = 0
    while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes++
    if (slashes % 2 === 0) return end
  }
  return -1
}
