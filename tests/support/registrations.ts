/** What of a registry or a scope the recorder wraps (structural, so this file needs no package to resolve). */
interface Registers {
  register(definition: unknown, options?: unknown): { name: string }
  scope(name: string, options?: unknown): Registers
}

/**
 * Records the full name of every tool registered on `tm`, directly or through any scope made from it
 * (`tm.scope(...)`, `scope.scope(...)`), in the order they register: what an adapter test needs to prove
 * that no tool is ever registered under the wrong name, even for an instant that no manifest shows.
 */
export function recordRegistrations(tm: Registers): string[] {
  const registered: string[] = []
  const wrap = (target: Registers): Registers => {
    const register = target.register.bind(target)
    const scope = target.scope.bind(target)
    target.register = (definition, options) => {
      const handle = register(definition, options)
      registered.push(handle.name)
      return handle
    }
    target.scope = (name, options) => wrap(scope(name, options))
    return target
  }
  wrap(tm)
  return registered
}
