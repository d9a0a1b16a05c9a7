import type { Scope, Toolmark } from '@toolmark/core'

/**
 * Records the full name of every tool registered on `tm`, directly or through any scope made from it
 * (`tm.scope(...)`, `scope.scope(...)`), in the order they register: what an adapter test needs to prove
 * that no tool is ever registered under the wrong name, even for an instant that no manifest shows.
 */
export function recordRegistrations(tm: Toolmark): string[] {
  const registered: string[] = []
  const wrapScope = (scope: Scope): Scope => {
    const register = scope.register.bind(scope)
    const child = scope.scope.bind(scope)
    scope.register = ((def, options) => {
      const handle = register(def, options)
      registered.push(handle.name)
      return handle
    }) as Scope['register']
    scope.scope = ((name, options) => wrapScope(child(name, options))) as Scope['scope']
    return scope
  }
  const register = tm.register.bind(tm)
  const scope = tm.scope.bind(tm)
  tm.register = ((def, options) => {
    const handle = register(def, options)
    registered.push(handle.name)
    return handle
  }) as Toolmark['register']
  tm.scope = ((name, options) => wrapScope(scope(name, options))) as Toolmark['scope']
  return registered
}
