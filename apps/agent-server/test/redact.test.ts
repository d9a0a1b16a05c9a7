import { describe, expect, it } from 'vitest'
import { maskText, maskValue } from '../src/redact.ts'

describe('masking before anything is persisted', () => {
  it('keeps only the last 4 digits of card-number-like sequences', () => {
    expect(maskText('card 4242 4242 4242 4242 now')).toBe('card **** 4242 now')
    expect(maskText('4242-4242-4242-4242')).toBe('**** 4242')
    expect(maskText('378282246310005.')).toBe('**** 0005.')
  })

  it('masks CVC-like codes after their keyword', () => {
    expect(maskText('cvc 123, CVV: 9876 and security code 321')).toBe(
      'cvc ***, CVV: *** and security code ***',
    )
  })

  it('leaves ordinary numbers, dates, UUIDs and short digit runs alone', () => {
    const text = 'Run 42 km on 12/30, id 12345678-1234-4123-8123-123456789abc, call 555 1234'
    expect(maskText(text)).toBe(text)
  })

  it('masks JSON values deeply and redacts CVC-like keys', () => {
    expect(
      maskValue({ card: { number: '4242424242424242', cvc: '123', expiry: '12/30' }, list: ['cvv 999', 7] }),
    ).toEqual({ card: { number: '**** 4242', cvc: '[redacted]', expiry: '12/30' }, list: ['cvv ***', 7] })
    expect(maskValue('{"cvc":"123","number":"4242 4242 4242 4242"}')).toBe(
      '{"cvc":"***","number":"**** 4242"}',
    )
  })
})
