import type { Coordinator, Located } from './coordinator.ts'

/**
 * The {@link Coordinator} of a server that is one process: there is no other instance to reach. Chat events stay
 * here, a turn runs at once (the agent queues a conversation's turns itself), a page load is held here or nowhere,
 * and every call is answered here.
 */
export class LocalCoordinator implements Coordinator {
  /** None: there are no other instances to tell this one from. */
  readonly instance: string | undefined = undefined

  publishEvent(): void {}

  onEvent(): void {}

  watchEvents(): Promise<void> {
    return Promise.resolve()
  }

  unwatchEvents(): void {}

  askSnapshot(): undefined {
    return undefined
  }

  onSnapshotAsk(): void {}

  runTurn(_conversationId: string, task: () => Promise<void>): Promise<void> {
    return task()
  }

  async turnRunning(): Promise<boolean> {
    return false
  }

  attachPages(): () => void {
    return () => {}
  }

  earlierCalls(timeOut: () => Promise<unknown>): Promise<unknown> {
    return timeOut()
  }

  holdPages(): void {}

  adoptPages(): void {}

  releasePage(): void {}

  joinConnecting(): void {}

  leaveConnecting(): void {}

  handOverPages(): void {}

  locate(): Promise<Located> | undefined {
    return undefined
  }

  async heldElsewhere(): Promise<boolean> {
    return false
  }

  async connectingElsewhere(): Promise<boolean> {
    return false
  }

  deliver(): void {}

  returnOutcome(): void {}

  async settledByAnother(): Promise<void> {}

  pageChanged(): void {}

  attachStreams(): () => void {
    return () => {}
  }

  holdStream(): void {}

  releaseStream(): void {}

  async streamElsewhere(): Promise<undefined> {
    return undefined
  }

  async findStream(): Promise<{ found: undefined; unsure: false }> {
    return { found: undefined, unsure: false }
  }

  async takeStream(): Promise<undefined> {
    return undefined
  }

  // Never called: no stream is ever found elsewhere.
  async postTo(): Promise<boolean> {
    return false
  }

  async endStream(): Promise<void> {}

  async ping(): Promise<void> {}
}

/** A new {@link LocalCoordinator}: the default of every server built without a cluster. */
export const localCoordinator = (): Coordinator => new LocalCoordinator()
