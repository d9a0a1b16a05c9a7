import { expect, it } from 'vitest'
import { correct, editDistance } from '../words.ts'

it('edit distance counts a swap of neighbours as one, and with a bound stops at bound + 1', () => {
  expect(editDistance('serch', 'search')).toBe(1)
  expect(editDistance('delte', 'delete')).toBe(1)
  expect(editDistance('chesss', 'chess')).toBe(1)
  expect(editDistance('form', 'from')).toBe(1)
  expect(editDistance('abcdef', 'uvwxyz')).toBe(6)
  // With a bound, every distance over it reads as bound + 1; those within it are exact.
  expect(editDistance('abcdef', 'uvwxyz', 2)).toBe(3)
  expect(editDistance('form', 'from', 1)).toBe(1)
  expect(editDistance('challange', 'challenge', 2)).toBe(1)
  expect(editDistance('kitten', 'sitting', 2)).toBe(3)
  expect(editDistance('kitten', 'sitting', 3)).toBe(3)
})

it('corrects a word the same way however often it is asked, for arrays and sets alike', () => {
  const vocabulary = ['search', 'delete', 'challenge']
  for (let i = 0; i < 3; i++) {
    expect(correct('serch', vocabulary)).toBe('search')
    expect(correct('Challange', vocabulary)).toBe('challenge')
    expect(correct('kite', vocabulary)).toBe('kite')
  }
  expect(correct('delte', new Set(vocabulary))).toBe('delete')
})
