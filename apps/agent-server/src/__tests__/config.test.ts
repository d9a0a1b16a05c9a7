import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { ConfigError, ENV_DOCS, helpText, loadConfig } from '../config.ts'

const root = fileURLToPath(new URL('../..', import.meta.url))

describe('configuration', () => {
  it('has documented defaults', () => {
    const config = loadConfig({})
    expect(config).toMatchObject({
      port: 8787,
      host: '127.0.0.1',
      provider: 'embedded',
      callDeadlineMs: 15_000,
      sessionSecret: undefined,
    })
    expect(config.dataFile).toBe(`${root}data/toolmark-demo.db`)
    expect(config.staticDir).toBe(fileURLToPath(new URL('../../../demo/dist', import.meta.url)))
  })

  it('picks the provider from the keys that are set, unless PROVIDER says otherwise', () => {
    expect(loadConfig({ OPENAI_API_KEY: 'o' }).provider).toBe('openai')
    expect(loadConfig({ OPENAI_API_KEY: 'o', ANTHROPIC_API_KEY: 'a' }).provider).toBe('anthropic')
    expect(loadConfig({ ANTHROPIC_API_KEY: 'a', PROVIDER: 'embedded' }).provider).toBe('embedded')
    expect(() => loadConfig({ PROVIDER: 'openai' })).toThrow(ConfigError)
    expect(() => loadConfig({ PROVIDER: 'gemini' })).toThrow(
      'PROVIDER must be embedded, anthropic, openai or auto',
    )
  })

  it('switches to PostgreSQL with DATABASE_URL and to shared mode with REDIS_URL, which needs DATABASE_URL', () => {
    expect(loadConfig({})).toMatchObject({ databaseUrl: undefined, redisUrl: undefined })
    const url = 'postgres://toolmark:s3cret@db.internal:5432/toolmark'
    expect(loadConfig({ DATABASE_URL: url, REDIS_URL: 'redis://cache:6379' })).toMatchObject({
      databaseUrl: url,
      redisUrl: 'redis://cache:6379',
    })
    expect(() => loadConfig({ REDIS_URL: 'redis://cache:6379' })).toThrow(
      'REDIS_URL needs DATABASE_URL: instances that share Redis must share one store too',
    )
    // The value may hold a password: the error never repeats it.
    expect(() => loadConfig({ DATABASE_URL: 'mysql://root:s3cret@db/x' })).toThrow(
      /^DATABASE_URL must be a URL starting with postgres:\/\/ or postgresql:\/\/$/,
    )
  })

  it('rejects unusable numbers and keeps :memory: and absolute paths as given', () => {
    expect(() => loadConfig({ PORT: 'http' })).toThrow('PORT must be an integer between 0 and 65535')
    expect(() => loadConfig({ CALL_DEADLINE_MS: '0' })).toThrow(ConfigError)
    expect(loadConfig({ DATA_FILE: ':memory:', STATIC_DIR: '/srv/www' })).toMatchObject({
      dataFile: ':memory:',
      staticDir: '/srv/www',
    })
  })

  it('reads ALLOWED_ORIGINS as exact origins and rejects anything else', () => {
    expect(loadConfig({}).allowedOrigins).toEqual([])
    expect(
      loadConfig({ ALLOWED_ORIGINS: 'https://demo.example.com, http://10.0.0.5:8787' }).allowedOrigins,
    ).toEqual(['https://demo.example.com', 'http://10.0.0.5:8787'])
    for (const bad of [
      '*',
      'demo.example.com',
      'https://demo.example.com/',
      'https://a.example/path',
      'null',
    ])
      expect(() => loadConfig({ ALLOWED_ORIGINS: bad }), bad).toThrow(ConfigError)
  })

  it('--help prints every variable with its default and exits 0', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--conditions=@toolmark/source', '--import', 'tsx', 'src/main.ts', '--help'],
      { cwd: root },
    )
    expect(stdout).toBe(helpText())
    for (const [name, fallback] of ENV_DOCS) {
      expect(stdout).toContain(name)
      expect(stdout).toContain(`default: ${fallback}`)
    }
  })
})
