import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type PusherServer, startPusherServer } from '@toolmark-internal/pusher-server'
import Database from 'better-sqlite3'
import Echo from 'laravel-echo'
import Pusher from 'pusher-js'
import { freePort } from '../../../support/servers.ts'
import type { ChatProgress, ChatWatch, PageLink, Target, User } from '../driver.ts'

/*
 * toolmark/laravel as a target: the Laravel 8 app of apps/inertia-demo (Debian's php-laravel-framework,
 * the package through its path autoloader) on a fresh SQLite file and storage, under `php -S` with several
 * workers, plus `php artisan queue:work` workers for the package's jobs and the Pusher-protocol stand-in
 * (packages/pusher-server). Each user signs in at /login/{name}; each page load is Laravel Echo (pusher-js)
 * on the conversation's private channel, posting to the package's bridge route with the session cookie and
 * the XSRF token, and saying it is gone when it leaves. Rejections are read from laravel.log, stored data
 * from the SQLite file (jobs included) and the logs.
 */

/** The chat's progress event on the channel (`Wire::NAMES['progressEvent']`). */
const PROGRESS_EVENT = 'toolmark.progress'
const LARAVEL = fileURLToPath(new URL('../../../../apps/inertia-demo/laravel', import.meta.url))
const DEADLINE_MS = 5000
const WEB_WORKERS = 8
const QUEUE_WORKERS = 4

/** A cookie jar for one browser, with Laravel's XSRF header. */
class Browser {
  readonly cookies = new Map<string, string>()
  constructor(readonly base: string) {}
  get cookie(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
  }
  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers)
    headers.set('cookie', this.cookie)
    const xsrf = this.cookies.get('XSRF-TOKEN')
    if (xsrf) headers.set('x-xsrf-token', decodeURIComponent(xsrf))
    headers.set('accept', 'application/json')
    headers.set('x-requested-with', 'XMLHttpRequest')
    const response = await fetch(this.base + path, { ...init, headers, redirect: 'manual' })
    for (const set of response.headers.getSetCookie()) {
      const [pair] = set.split(';')
      const at = pair!.indexOf('=')
      this.cookies.set(pair!.slice(0, at), pair!.slice(at + 1))
    }
    return response
  }
  async post(path: string, body: string): Promise<number> {
    const response = await this.fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    })
    await response.body?.cancel()
    return response.status
  }
}

/** The toolmark/laravel target. */
export class LaravelTarget implements Target {
  readonly name = 'laravel'
  readonly deadlineMs = DEADLINE_MS
  // More would hold more web workers in model requests than WEB_WORKERS leaves for the pages' POSTs.
  readonly concurrency = 4
  #dir = ''
  #url = ''
  #database = ''
  #log = ''
  #pusher: PusherServer | undefined
  #children: ChildProcess[] = []
  #db: Database.Database | undefined

  async start(modelUrl: string): Promise<void> {
    this.#dir = mkdtempSync(join(tmpdir(), 'conformance-laravel-'))
    const storage = join(this.#dir, 'storage')
    for (const sub of ['framework/sessions', 'framework/views', 'framework/cache', 'logs', 'app'])
      mkdirSync(join(storage, sub), { recursive: true })
    this.#database = join(this.#dir, 'database.sqlite')
    writeFileSync(this.#database, '')
    this.#log = join(storage, 'logs/laravel.log')
    writeFileSync(this.#log, '')
    const pusher = await startPusherServer({
      appId: '1',
      key: 'conformance',
      secret: randomBytes(16).toString('hex'),
    })
    this.#pusher = pusher
    const port = await freePort()
    this.#url = `http://127.0.0.1:${port}`
    const env = {
      ...process.env,
      APP_KEY: `base64:${randomBytes(32).toString('base64')}`,
      APP_URL: this.#url,
      DB_DATABASE: this.#database,
      TOOLMARK_STORAGE: storage,
      PUSHER_APP_ID: pusher.appId,
      PUSHER_APP_KEY: pusher.key,
      PUSHER_APP_SECRET: pusher.secret,
      PUSHER_HOST: '127.0.0.1',
      PUSHER_PORT: String(pusher.port),
      TOOLMARK_LLM_URL: modelUrl,
      OPENAI_API_KEY: '',
      TOOLMARK_DEADLINE_MS: String(DEADLINE_MS),
      PHP_CLI_SERVER_WORKERS: String(WEB_WORKERS),
    }
    const migrate = spawnSync('php', ['artisan', 'migrate', '--force'], {
      cwd: LARAVEL,
      env,
      encoding: 'utf8',
    })
    if (migrate.status !== 0) throw new Error(`migrate failed: ${migrate.stdout}${migrate.stderr}`)
    this.#db = new Database(this.#database, { timeout: 10_000 })
    // WAL lets the web workers read while a queue worker writes.
    this.#db.pragma('journal_mode = WAL')
    const ini = [
      '-d',
      'log_errors=1',
      '-d',
      `error_log=${join(storage, 'logs/php.log')}`,
      '-d',
      'display_errors=0',
    ]
    const start = (args: string[]) => {
      // Its own process group: `php -S` forks workers that must stop with it.
      const child = spawn('php', [...ini, ...args], { cwd: LARAVEL, env, stdio: 'ignore', detached: true })
      this.#children.push(child)
      return child
    }
    // Should the runner end without stop(), no PHP process outlives it.
    process.once('exit', () => {
      for (const child of this.#children)
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
        } catch {
          // already gone
        }
    })
    const web = start(['-S', `127.0.0.1:${port}`, '-t', 'public', 'public/index.php'])
    for (let i = 0; i < QUEUE_WORKERS; i++)
      start(['artisan', 'queue:work', '--sleep=0.05', '--tries=1', '--quiet'])
    const until = Date.now() + 15_000
    for (;;) {
      if (web.exitCode !== null) throw new Error(`php -S exited with ${web.exitCode}`)
      try {
        await fetch(`${this.#url}/login`, { redirect: 'manual' })
        return
      } catch {
        if (Date.now() > until) throw new Error('Laravel did not answer')
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }
  }

  async user(): Promise<User> {
    const db = this.#db!
    const name = Array.from(randomBytes(12), (b) => String.fromCharCode(97 + (b % 26))).join('')
    const browser = new Browser(this.#url)
    const login = await browser.fetch(`/login/${name}`)
    await login.body?.cancel()
    if (login.status !== 302) throw new Error(`sign-in answered ${login.status}`)
    const row = db
      .prepare(
        'SELECT c.id AS conversation, u.id AS user FROM conversations c JOIN users u ON u.id = c.user_id WHERE u.name = ? ORDER BY c.id DESC LIMIT 1',
      )
      .get(name) as { conversation: number; user: number }
    return {
      async say(text) {
        const status = await browser.post(
          `/conversations/${row.conversation}/messages`,
          JSON.stringify({ text }),
        )
        if (status !== 202) throw new Error(`the chat message was answered ${status}`)
      },
      openPage: (clientId) => this.#page(browser, row.user, row.conversation, clientId),
      rejections: async () => {
        const out: string[] = []
        for (const m of readFileSync(this.#log, 'utf8').matchAll(
          /toolmark: rejected page message \{"reason":"(\w+)","conversation":(\d+)/g,
        ))
          if (Number(m[2]) === row.conversation) out.push(m[1]!)
        return out
      },
      chat: async () =>
        db
          .prepare(
            "SELECT role, text FROM conversation_messages WHERE conversation_id = ? AND role <> 'tool' ORDER BY id",
          )
          .all(row.conversation) as Array<{ role: string; text: string }>,
      stored: async () => {
        const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{
          name: string
        }>
        const rows = tables.map(
          ({ name: t }) => `${t}: ${JSON.stringify(db.prepare(`SELECT * FROM "${t}"`).all())}`,
        )
        return `${rows.join('\n')}\n${readFileSync(this.#log, 'utf8')}`
      },
      // Test hook: ages this conversation's pending confirmations past the package's lifetime
      // (toolmark.confirm_expiry_minutes, 11) instead of waiting for it.
      outliveConfirmations: async () => {
        const columns = (
          db.prepare('PRAGMA table_info(toolmark_confirmations)').all() as Array<{ name: string }>
        ).map((c) => c.name)
        const set = ["created_at = strftime('%Y-%m-%d %H:%M:%S', 'now', '-12 minutes')"]
        if (columns.includes('expires_at'))
          set.push("expires_at = strftime('%Y-%m-%d %H:%M:%S', 'now', '-1 minutes')")
        db.prepare(
          `UPDATE toolmark_confirmations SET ${set.join(', ')} WHERE conversation_id = ? AND state = 'pending'`,
        ).run(row.conversation)
      },
      watchChat: () => this.#chat(browser, row.user, row.conversation),
    }
  }

  /** The chat's live events: the conversation's private channel, as the chat UI joins it. */
  async #chat(browser: Browser, user: number, conversation: number): Promise<ChatWatch> {
    const { echo, channel } = await this.#join(browser, user, conversation)
    const progress: ChatProgress[] = []
    channel.listen(`.${PROGRESS_EVENT}`, (payload: ChatProgress) => {
      progress.push({ callId: payload.callId, progress: payload.progress })
    })
    return {
      progress: () => [...progress],
      close: async () => echo.disconnect(),
    }
  }

  /** Laravel Echo (pusher-js) on the conversation's private channel, authorized by the browser's session. */
  async #join(browser: Browser, user: number, conversation: number) {
    const pusher = this.#pusher!
    const echo = new Echo({
      broadcaster: 'reverb',
      key: pusher.key,
      wsHost: '127.0.0.1',
      wsPort: pusher.port,
      wssPort: pusher.port,
      forceTLS: false,
      enabledTransports: ['ws'],
      Pusher,
      // The page's session authorizes the channel at Laravel's /broadcasting/auth.
      authorizer: (channel: { name: string }) => ({
        authorize: (
          socketId: string,
          callback: (error: Error | null, data: { auth: string } | null) => void,
        ) => {
          browser
            .fetch('/broadcasting/auth', {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ socket_id: socketId, channel_name: channel.name }),
            })
            .then(async (response) => {
              if (!response.ok) throw new Error(`channel auth answered ${response.status}`)
              callback(null, (await response.json()) as { auth: string })
            })
            .catch((error: Error) => callback(error, null))
        },
      }),
    })
    const channel = echo.private(`toolmark.${user}.${conversation}`)
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the private channel was not joined')), 10_000)
      channel.subscribed(() => {
        clearTimeout(timer)
        resolve()
      })
      channel.error((error: unknown) => {
        clearTimeout(timer)
        reject(new Error(`the private channel was refused: ${JSON.stringify(error)}`))
      })
    })
    return { echo, channel }
  }

  /** A page load: Echo on the conversation's private channel in, POSTs to the bridge route out. */
  async #page(browser: Browser, user: number, conversation: number, clientId: string): Promise<PageLink> {
    const { echo, channel } = await this.#join(browser, user, conversation)
    const handlers: Array<(message: unknown) => void> = []
    channel.listen('.toolmark.message', (payload: { message?: unknown }) => {
      const message =
        payload && typeof payload === 'object' && 'message' in payload ? payload.message : payload
      for (const h of handlers) h(message)
    })
    let gone = false
    return {
      async send(text) {
        await browser.post(`/toolmark/bridge/${conversation}`, text)
      },
      onMessage(handler) {
        handlers.push(handler)
      },
      // Each message is its own POST; the channel is the conversation's, kept by Echo.
      closedByServer: () => 0,
      async leave() {
        if (gone) return
        gone = true
        echo.disconnect()
        await browser.post(`/toolmark/gone/${conversation}`, JSON.stringify({ clientId }))
      },
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.#children.map(stopGroup))
    this.#db?.close()
    await this.#pusher?.close()
    if (this.#dir) rmSync(this.#dir, { recursive: true, force: true })
  }
}

/** Stops a child's process group (`php -S` and its workers), forcibly after 5 s. */
function stopGroup(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.pid === undefined || child.exitCode !== null) return resolve()
    const group = -child.pid
    const signal = (name: NodeJS.Signals | 0): boolean => {
      try {
        process.kill(group, name)
        return true
      } catch {
        return false
      }
    }
    const force = setTimeout(() => signal('SIGKILL'), 5000)
    child.once('exit', () => {
      clearTimeout(force)
      signal('SIGKILL') // workers the group leader left behind
      resolve()
    })
    signal('SIGTERM')
  })
}
