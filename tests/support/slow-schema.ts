/**
 * A Standard Schema (written out structurally: this folder imports no package) whose `validate`
 * returns a promise that the test settles by hand, for calls that must be cancelled or disposed
 * while their input is being validated.
 */
export interface SlowSchema<T> {
  schema: {
    readonly '~standard': {
      readonly version: 1
      readonly vendor: string
      readonly validate: (value: unknown) => Promise<{ readonly value: T }>
      readonly types?: { readonly input: T; readonly output: T }
    }
  }
  /** Settles every validation started so far, passing its value. */
  pass(): void
  /** How many validations are waiting. */
  started: () => number
}

export function slowSchema<T>(): SlowSchema<T> {
  const waiting: Array<(r: { value: T }) => void> = []
  const values: unknown[] = []
  return {
    schema: {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: (value) =>
          new Promise<{ value: T }>((resolve) => {
            values.push(value)
            waiting.push(resolve)
          }),
      },
    },
    pass() {
      for (const [i, resolve] of waiting.entries()) resolve({ value: values[i] as T })
      waiting.length = 0
      values.length = 0
    },
    started: () => waiting.length,
  }
}
