import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Rejection } from '@toolmark/server'
import { loadConfig, type RunningServer, startServer } from '@toolmark-apps/agent-server'

/** The real agent server (embedded agent, SQLite in a temp file) serving the built demo. */
export interface DemoServer {
  server: RunningServer
  url: string
  /** The SQLite file the server writes (plus its -wal/-shm companions). */
  dataFile: string
  /** Every page message the relay rejected (Security MUSTs, or a confirmId of a page that is gone). */
  rejections: Rejection[]
  /** Log lines the server wrote. */
  log: string[]
  /** Every byte the SQLite store holds on disk (main file, WAL and shared memory), as latin1 text. */
  storedBytes(): Promise<string>
  /**
   * Stops the server and starts a new one on the same port and SQLite file, as a deploy or a crash and a
   * restart would: `server` is the new one afterwards, and everything in memory (page connections, pending
   * calls' waiters) is gone.
   */
  restart(): Promise<void>
  close(): Promise<void>
}

/** Starts the agent server on 127.0.0.1:0 with the embedded agent, serving `staticDir`. */
export async function startDemoServer(staticDir: string): Promise<DemoServer> {
  const dir = await mkdtemp(join(tmpdir(), 'toolmark-demo-server-'))
  const dataFile = join(dir, 'demo.db')
  const log: string[] = []
  const rejections: Rejection[] = []
  const start = async (port: string): Promise<RunningServer> => {
    const config = loadConfig({
      PORT: port,
      HOST: '127.0.0.1',
      DATA_FILE: dataFile,
      STATIC_DIR: staticDir,
      PROVIDER: 'embedded',
      CALL_DEADLINE_MS: '10000',
    })
    const server = await startServer({ config, log: (line) => log.push(line) })
    server.relay.on('rejected', (rejection) => rejections.push(rejection))
    return server
  }
  const first = await start('0')
  const demo: DemoServer = {
    server: first,
    url: first.url,
    dataFile,
    rejections,
    log,
    async storedBytes() {
      const parts = await Promise.all(
        ['', '-wal', '-shm', '-journal'].map((suffix) =>
          readFile(dataFile + suffix).catch(() => Buffer.alloc(0)),
        ),
      )
      return Buffer.concat(parts).toString('latin1')
    },
    async restart() {
      await demo.server.close()
      demo.server = await start(new URL(demo.url).port)
    },
    async close() {
      await demo.server.close()
      await rm(dir, { recursive: true, force: true })
    },
  }
  return demo
}
