import { EventSource as NodeEventSource } from 'eventsource'
import { expectTypeOf, test } from 'vitest'
import type { EventSourceConstructorLike } from '../http.ts'

test("the browser's EventSource and the eventsource package's both fit the EventSource option", () => {
  expectTypeOf(globalThis.EventSource).toExtend<EventSourceConstructorLike>()
  expectTypeOf(NodeEventSource).toExtend<EventSourceConstructorLike>()
})
