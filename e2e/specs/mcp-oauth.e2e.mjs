// Signing in to a remote MCP server in the real window: the MCP SDK's own
// example server (from npm, written by others; installed into
// testdata/mcp-servers by scripts/test.sh) run with its OAuth authorization
// server, whose consent page approves at once. The app finds the server's
// authorization server from its 401, registers itself, and opens the system
// browser at the consent page; the "browser" here is a stand-in for
// xdg-open that visits the page and follows its redirects back to the app.
// The server becomes ready with its tools, its token is kept in the runtime
// home (not in the settings), Settings → MCP offers Sign out, and signing out
// forgets the token. Shot at 900x650 and 1440x900 in both themes.
import assert from 'node:assert/strict'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import { join } from 'node:path'
import { start, stop } from '../lib/proc.mjs'

export const timeoutMs = 180000

const freePort = () =>
  new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address()
      srv.close(() => resolve(port))
    })
  })

export async function setup({ tmp, repo, home }) {
  const example = join(repo, 'testdata/mcp-servers/node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js')
  if (!existsSync(example)) throw new Error(`${example} is missing: run npm install --no-audit --no-fund in testdata/mcp-servers (scripts/test.sh does it)`)
  const mcpPort = await freePort()
  const authPort = await freePort()
  const server = start(process.execPath, [example, '--oauth'], { env: { ...process.env, MCP_PORT: String(mcpPort), MCP_AUTH_PORT: String(authPort) }, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  server.stdout.on('data', (d) => (out += d))
  server.stderr.on('data', (d) => (out += d))
  const deadline = Date.now() + 20000
  while (!/listening on port/i.test(out)) {
    if (Date.now() > deadline || server.exitCode !== null) throw new Error(`the example server did not start:\n${out}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  // The system browser: visits the page it is given and follows the
  // redirects (the consent approves at once, then back to the app).
  const bin = join(tmp, 'bin')
  mkdirSync(bin, { recursive: true })
  const visited = join(tmp, 'visited.txt')
  writeFileSync(
    join(bin, 'xdg-open'),
    `#!${process.execPath}\nconst { appendFileSync } = require('node:fs')\nappendFileSync(${JSON.stringify(visited)}, process.argv[2] + '\\n')\nfetch(process.argv[2]).then((r) => r.text()).catch((e) => { console.error(e); process.exit(1) })\n`,
  )
  chmodSync(join(bin, 'xdg-open'), 0o755)
  writeFileSync(
    join(home, 'settings.json'),
    JSON.stringify({ tools: { mcp: { enabled: true, startOnOpen: true } }, mcpServers: { demo: { type: 'http', url: `http://localhost:${mcpPort}/mcp` } } }, null, 2),
    { mode: 0o600 },
  )
  return {
    visited,
    authPort,
    env: { PATH: `${bin}:${process.env.PATH}` },
    cleanup: () => stop(server),
  }
}

const all = (id) => `[...document.querySelectorAll('[data-testid="${id}"]')]`
const demo = `${all('mcp-server')}.find((c) => c.dataset.name === 'demo')`

export default async function mcpOAuth({ app, step, tmp, home, prepared }) {
  const workdir = join(tmp, 'work')
  mkdirSync(workdir, { recursive: true })

  await step('a project opens; the server asks to sign in and the browser consents', async () => {
    await app.waitForTestId('start-screen')
    await app.click('new-project-button')
    await app.typeInto('new-project-name-input', 'remote')
    await app.typeInto('new-project-parent-input', workdir)
    await app.click('new-project-submit')
    await app.waitForTestId('workspace-screen')
    await app.click('open-settings')
    await app.click('settings-tab-mcp')
    await app.waitFor(`${demo}?.dataset.state === 'ready'`, { timeoutMs: 60000, what: 'the signed-in server to be ready' })
    const visited = readFileSync(prepared.visited, 'utf8').trim().split('\n')
    assert.equal(visited.length, 1, `the browser opened ${visited.length} times`)
    const consent = new URL(visited[0])
    assert.equal(consent.port, String(prepared.authPort), `consent asked at ${consent}`)
    assert.equal(consent.searchParams.get('code_challenge_method'), 'S256')
    assert.match(consent.searchParams.get('redirect_uri') ?? '', /^http:\/\/127\.0\.0\.1:\d+\/callback$/)
    const tokens = JSON.parse(readFileSync(join(home, 'mcp-tokens.json'), 'utf8'))
    assert.ok(JSON.stringify(tokens).includes('demo'), 'no token kept for the server')
    assert.ok(!readFileSync(join(home, 'settings.json'), 'utf8').includes('access_token'), 'a token went into the settings')
  })

  await step('Settings → MCP: the server ready with its tools, and Sign out', async () => {
    await app.waitFor(`!!${demo}?.querySelector('[data-testid="mcp-sign-out"]')`, { what: 'the Sign out button' })
    await app.screenshots('86-mcp-signed-in', async () => {
      await app.evaluate(`${demo}.scrollIntoView({ block: 'center' })`)
    })
  })

  await step('Sign out forgets the token', async () => {
    await app.evaluate(`${demo}.querySelector('[data-testid="mcp-sign-out"]').click()`)
    await app.waitFor(`!!document.querySelector('[data-testid="mcp-signed-out"]')`, { what: 'the signed-out note' })
    const tokens = existsSync(join(home, 'mcp-tokens.json')) ? readFileSync(join(home, 'mcp-tokens.json'), 'utf8') : '{}'
    assert.ok(!tokens.includes('"demo"'), `the token is still kept: ${tokens.slice(0, 200)}`)
    await app.screenshot('87-mcp-signed-out')
  })
}
