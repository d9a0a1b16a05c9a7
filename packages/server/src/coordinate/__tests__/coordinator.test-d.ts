import { describe, expectTypeOf, it } from 'vitest'
import type { Agent } from '../../agent/loop.ts'
import { bridgeHttp } from '../../http/bridge-http.ts'
import type { Cluster, ClusterEvent, MovedStream } from '../../relay/cluster.ts'
import type { Relay } from '../../relay/relay.ts'
import { type ClusterCoordinator, clusterCoordinator } from '../cluster.ts'
import type {
  Coordinator,
  HandedPost,
  Located,
  Outcome,
  PageHost,
  StreamHost,
  TurnRun,
} from '../coordinator.ts'
import { type LocalCoordinator, localCoordinator } from '../local.ts'

/*
 * The `Coordinator` port: the one seam of shared mode. Both implementations are the whole port, the relay, the
 * agent and the HTTP transport take it (and nothing about a cluster), and its methods keep the shapes below.
 */

describe('the Coordinator port', () => {
  it('is what both implementations are, and what the relay, the agent and the HTTP transport take', () => {
    expectTypeOf(localCoordinator()).toEqualTypeOf<Coordinator>()
    expectTypeOf(clusterCoordinator).parameter(0).toEqualTypeOf<Cluster>()
    expectTypeOf(clusterCoordinator).returns.toEqualTypeOf<Coordinator>()
    expectTypeOf<LocalCoordinator>().toMatchTypeOf<Coordinator>()
    expectTypeOf<ClusterCoordinator>().toMatchTypeOf<Coordinator>()
    expectTypeOf<ConstructorParameters<typeof Relay>[0]>()
      .toHaveProperty('coordinator')
      .toEqualTypeOf<Coordinator | undefined>()
    expectTypeOf<ConstructorParameters<typeof Agent>[0]>()
      .toHaveProperty('coordinator')
      .toEqualTypeOf<Coordinator | undefined>()
    expectTypeOf(bridgeHttp)
      .parameter(0)
      .toHaveProperty('coordinator')
      .toEqualTypeOf<Coordinator | undefined>()
    expectTypeOf<ConstructorParameters<typeof Relay>[0]>().not.toHaveProperty('cluster')
    expectTypeOf<ConstructorParameters<typeof Agent>[0]>().not.toHaveProperty('cluster')
  })

  it('names this instance only among several', () => {
    expectTypeOf<Coordinator['instance']>().toEqualTypeOf<string | undefined>()
    expectTypeOf<ClusterCoordinator['instance']>().toEqualTypeOf<string>()
  })

  it('delivers a message to a page load wherever it is held, and never throws doing so', () => {
    expectTypeOf<Coordinator['attachPages']>().toEqualTypeOf<(host: PageHost) => () => void>()
    expectTypeOf<Coordinator['locate']>().toEqualTypeOf<
      (conversationId: string, clientId: string, connectingHere: boolean) => Promise<Located> | undefined
    >()
    expectTypeOf<Coordinator['deliver']>().returns.toEqualTypeOf<void>()
    expectTypeOf<PageHost['deliverHere']>().returns.toEqualTypeOf<boolean>()
  })

  it("returns a call's outcome to whoever waits, made only when it crosses", () => {
    expectTypeOf<Coordinator['returnOutcome']>().toEqualTypeOf<
      (waiter: string | undefined, outcome: () => Outcome) => void
    >()
    expectTypeOf<PageHost['outcome']>().toEqualTypeOf<(outcome: Outcome) => Promise<void>>()
  })

  it("hands a page's POST and its stream between instances", () => {
    expectTypeOf<Coordinator['attachStreams']>().toEqualTypeOf<(host: StreamHost) => () => void>()
    expectTypeOf<Coordinator['postTo']>().toEqualTypeOf<
      (instance: string, post: HandedPost) => Promise<boolean>
    >()
    expectTypeOf<StreamHost['give']>().returns.toEqualTypeOf<MovedStream | undefined>()
    expectTypeOf<Coordinator['takeStream']>().toBeFunction()
    expectTypeOf(
      localCoordinator().takeStream('a', { streamId: 's', userId: 'u', conversationId: 'c' }, () => 1),
    ).resolves.toEqualTypeOf<number | undefined>()
  })

  it("publishes chat events, and asks for another instance's message in progress only when there can be one", () => {
    expectTypeOf<Coordinator['publishEvent']>().toEqualTypeOf<
      (conversationId: string, event: ClusterEvent) => void
    >()
    expectTypeOf<Coordinator['askSnapshot']>().returns.toEqualTypeOf<Promise<boolean> | undefined>()
    expectTypeOf<LocalCoordinator['askSnapshot']>().returns.toEqualTypeOf<undefined>()
  })

  it("runs a conversation's turn exclusively, stopped by the agent's signal", () => {
    expectTypeOf<Coordinator['runTurn']>().toEqualTypeOf<
      (conversationId: string, task: () => Promise<void>, run: TurnRun) => Promise<void>
    >()
    expectTypeOf<TurnRun['signal']>().toEqualTypeOf<AbortSignal>()
  })
})
