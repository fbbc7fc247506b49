// MCP servers in the real window, against real servers from npm written by
// others (@modelcontextprotocol/server-everything and server-filesystem,
// installed into testdata/mcp-servers by scripts/test.sh): Settings → MCP with
// a server ready and its tools, one that fails with the end of its stderr, a
// project server from .mcp.json waiting for approval and approved, a Claude
// Desktop block pasted (secrets masked) whose server starts; then a chat in
// which the fake LLM calls an MCP tool and the tool card shows it, and no
// server process left once the app has exited. Shot at 900x650 and 1440x900
// in both themes.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startFakeLLM } from '../lib/fakellm.mjs'

export const timeoutMs = 300000

const marker = 'CREWAGENT_E2E_MCP'
const secret = 'tok-e2e-0123456789abcdef'

/** The processes whose environment carries the marker of this spec. */
function markedPIDs(tag) {
  const out = []
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      const env = readFileSync(`/proc/${d}/environ`, 'latin1')
      const stat = readFileSync(`/proc/${d}/stat`, 'latin1')
      if (env.includes(`${marker}=${tag}\0`) && !/\) Z /.test(stat)) out.push(Number(d))
    } catch {
      // gone, or not ours
    }
  }
  return out
}

export async function setup({ tmp, repo, home }) {
  const modules = join(repo, 'testdata/mcp-servers/node_modules/@modelcontextprotocol')
  const everything = join(modules, 'server-everything/dist/index.js')
  const filesystem = join(modules, 'server-filesystem/dist/index.js')
  for (const f of [everything, filesystem]) {
    if (!existsSync(f)) throw new Error(`${f} is missing: run npm install --no-audit --no-fund in testdata/mcp-servers (scripts/test.sh does it)`)
  }
  const rules = [
    { match: 'add two numbers', response: { tool_calls: [{ name: 'mcp__everything__get-sum', arguments: '{"a":2,"b":3}' }] } },
    { match: '*', on_tool_result: true, response: { text: 'The server says: ', echo: true } },
    { match: '*', response: { text: 'You said: ', echo: true } },
  ]
  const llm = await startFakeLLM({ binary: join(repo, 'build/bin/fakellm'), rules, dir: tmp })
  writeFileSync(
    join(home, 'settings.json'),
    JSON.stringify(
      {
        llm: { maxRetries: 0 },
        tools: { mcp: { enabled: true, startOnOpen: true, callTimeoutSeconds: 60 } },
        mcpServers: {
          everything: { command: 'node', args: [everything, 'stdio'], env: { [marker]: 'm-ev', API_TOKEN: secret } },
          warehouse: {
            command: 'node',
            args: ['-e', "console.error('warehouse: connecting to db.internal:5432'); console.error('Error: connect ECONNREFUSED 10.0.0.7:5432'); process.exit(3)"],
            env: { [marker]: 'm-wh' },
          },
        },
      },
      null,
      2,
    ),
    { mode: 0o600 },
  )
  return {
    llm,
    everything,
    filesystem,
    env: { CREWAGENT_LLM_BASE_URL: llm.url, CREWAGENT_LLM_MODEL: 'gpt-4o-mini' },
    cleanup: () => llm.stop(),
  }
}

const sel = (id) => `document.querySelector('[data-testid="${id}"]')`
const all = (id) => `[...document.querySelectorAll('[data-testid="${id}"]')]`
const card = (name) => `${all('mcp-server')}.find((c) => c.dataset.name === ${JSON.stringify(name)})`

export default async function mcp({ app, step, tmp, home, prepared }) {
  const workdir = join(tmp, 'work')
  mkdirSync(workdir, { recursive: true })
  let projectRoot
  const waitState = (name, want, timeoutMs = 20000) =>
    app.waitFor(`${card(name)}?.dataset.state === ${JSON.stringify(want)}`, { timeoutMs, what: `${name} to be ${want}` })
  const matrix = (name, prepare) => app.screenshots(name, prepare)
  const scrollTo = (expr) => app.evaluate(`(() => { const el = ${expr}; el?.scrollIntoView({ block: 'start' }); return !!el })()`)

  await step('a project opens and its settings servers start with it', async () => {
    await app.waitForTestId('start-screen')
    await app.click('new-project-button')
    await app.typeInto('new-project-name-input', 'tools')
    await app.typeInto('new-project-parent-input', workdir)
    await app.click('new-project-submit')
    await app.waitForTestId('workspace-screen')
    projectRoot = join(workdir, 'tools')
    // A project server arrives with the folder (written while the window is open).
    writeFileSync(
      join(projectRoot, '.mcp.json'),
      JSON.stringify({ mcpServers: { 'repo-tools': { command: 'node', args: [prepared.everything, 'stdio'], env: { [marker]: 'm-repo' } } } }, null, 2),
    )
    await app.click('open-settings')
    await app.click('settings-tab-mcp')
    await app.waitForTestId('mcp-panel')
    await waitState('everything', 'ready')
    await waitState('warehouse', 'failed')
    await waitState('repo-tools', 'pending-approval')
    assert.equal(markedPIDs('m-repo').length, 0, 'an unapproved project server is running')
    assert.ok(markedPIDs('m-ev').length >= 2, 'the ready server has no processes')
  })

  await step('a ready server lists its tools; a failed one says why with the end of its stderr', async () => {
    const status = await app.evaluate(`${card('everything')}.querySelector('[data-testid="mcp-status"]').textContent`)
    assert.match(status, /^Ready · \d+ tools$/)
    await app.evaluate(`${card('everything')}.querySelector('[data-testid="mcp-tools-toggle"]').click()`)
    const tools = await app.evaluate(`[...${card('everything')}.querySelectorAll('[data-testid="mcp-tool"]')].map((t) => t.dataset.name)`)
    assert.ok(tools.includes('mcp__everything__echo') && tools.includes('mcp__everything__get-sum'), `tools: ${tools}`)
    const env = await app.evaluate(`${card('everything')}.querySelector('[data-testid="mcp-env"]').textContent`)
    assert.match(env, /API_TOKEN=••••cdef/)
    assert.equal(await app.evaluate(`document.body.textContent.includes(${JSON.stringify(secret)})`), false, 'a secret is on screen')
    const error = await app.evaluate(`${card('warehouse')}.querySelector('[data-testid="mcp-error"]').textContent`)
    assert.match(error, /exited with status 3/)
    const stderr = await app.evaluate(`${card('warehouse')}.querySelector('[data-testid="mcp-stderr"]').textContent`)
    assert.match(stderr, /ECONNREFUSED 10\.0\.0\.7:5432/)
    await app.evaluate(`${card('warehouse')}.querySelector('[data-testid="mcp-log-button"]').click()`)
    await app.waitFor(`${card('warehouse')}.querySelector('[data-testid="mcp-log"]')?.textContent.includes('connecting to db.internal')`, { what: 'the log tail' })
    await matrix('70-mcp-servers', async () => {
      await app.evaluate(`${sel('settings-screen')}.querySelector('.modal-body').scrollTop = 0`)
    })
    await matrix('71-mcp-failed-and-pending', async () => {
      await scrollTo(card('repo-tools'))
    })
    // Edited as shown: the secret stays masked in the form too.
    await app.evaluate(`${card('everything')}.querySelector('[data-testid="mcp-edit"]').click()`)
    await app.waitForTestId('mcp-form')
    const envText = await app.evaluate(`${sel('mcp-form-env')}.value`)
    assert.match(envText, /^API_TOKEN=••••cdef$/m)
    await matrix('74-mcp-edit-form', async () => {
      await scrollTo(sel('mcp-form'))
    })
    await app.click('mcp-form-cancel')
  })

  await step('a project server is approved, then starts', async () => {
    const approval = await app.evaluate(`${card('repo-tools')}.querySelector('[data-testid="mcp-approval"]').textContent`)
    assert.match(approval, /came with the project/)
    const command = await app.evaluate(`${card('repo-tools')}.querySelector('[data-testid="mcp-command"]').textContent`)
    assert.ok(command.includes(prepared.everything), `it does not say what it would run: ${command}`)
    await app.evaluate(`${card('repo-tools')}.querySelector('[data-testid="mcp-approve"]').click()`)
    await waitState('repo-tools', 'ready')
    assert.ok(markedPIDs('m-repo').length >= 2, 'the approved server does not run')
    const meta = JSON.parse(readFileSync(join(projectRoot, '.crewagent.json'), 'utf8'))
    const approvals = JSON.parse(readFileSync(join(home, 'projects', meta.projectId, 'mcp-approvals.json'), 'utf8'))
    assert.ok(approvals.servers['repo-tools'], 'the approval was not recorded')
  })

  await step('a pasted Claude Desktop block: read with its secret masked, then added and started', async () => {
    const box = join(tmp, 'notes')
    mkdirSync(box, { recursive: true })
    writeFileSync(join(box, 'todo.md'), '- water the plants\n')
    const block = JSON.stringify(
      { mcpServers: { notes: { command: 'node', args: [prepared.filesystem, box], env: { [marker]: 'm-notes', NOTES_KEY: 'nk-e2e-abcdefgh1234' } } } },
      null,
      2,
    )
    await scrollTo(sel('mcp-paste-input'))
    await app.typeInto('mcp-paste-input', block)
    await app.click('mcp-paste-read')
    await app.waitForTestId('mcp-paste-preview')
    const preview = await app.text('mcp-paste-preview')
    assert.match(preview, /NOTES_KEY=••••1234/)
    assert.doesNotMatch(preview, /nk-e2e-abcdefgh1234/)
    await matrix('72-mcp-paste', async () => {
      await scrollTo(sel('mcp-paste-input'))
    })
    await app.click('mcp-paste-add')
    await app.waitFor(`${sel('mcp-paste-result')}?.textContent.includes('Added notes')`, { what: 'the added server' })
    await waitState('notes', 'ready')
    const saved = JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8'))
    assert.equal(saved.mcpServers.notes.env.NOTES_KEY, 'nk-e2e-abcdefgh1234', 'the secret was not kept in settings.json')
    await app.click('settings-screen-close')
  })

  await step('in a chat the model calls an MCP tool and the card shows it', async () => {
    await app.click('conv-new')
    await app.waitForTestId('chat-view')
    await app.typeInto('composer-input', 'please add two numbers')
    await app.press('composer-input', 'Enter')
    await app.waitFor(`${sel('chat-view')}?.dataset.streaming === 'false' && ${all('msg-assistant')}.length > 0`, { timeoutMs: 30000, what: 'the reply' })
    await app.waitFor(`${all('tool-card')}.some((c) => c.dataset.tool === 'mcp__everything__get-sum' && c.dataset.status === 'ok')`, { what: 'an ok MCP tool card' })
    const head = await app.evaluate(`${all('tool-card')}.find((c) => c.dataset.tool === 'mcp__everything__get-sum').querySelector('[data-testid="tool-toggle"]').textContent`)
    assert.match(head, /everything › get-sum/)
    assert.match(head, /MCP/)
    await app.evaluate(`${all('tool-card')}.find((c) => c.dataset.tool === 'mcp__everything__get-sum').querySelector('[data-testid="tool-toggle"]').click()`)
    await app.waitFor(`${sel('tool-result-text')}?.textContent.includes('The sum of 2 and 3 is 5')`, { what: 'the result in the card' })
    const answer = await app.evaluate(`${all('msg-assistant')}.pop().textContent`)
    assert.match(answer, /The server says: .*The sum of 2 and 3 is 5/)
    // the result reached the model's next request
    const reqs = await prepared.llm.requests()
    const chats = reqs.filter((r) => r.path?.endsWith('/chat/completions'))
    const first = chats.find((r) => r.messages?.some((m) => m.role === 'user' && m.content?.includes('add two numbers')))
    assert.ok(first?.tools?.some((t) => t.name === 'mcp__everything__get-sum' && JSON.stringify(t.parameters).includes('"a"')), 'the MCP tool was not offered with its schema')
    const last = chats[chats.length - 1]
    assert.ok(last.messages.some((m) => m.role === 'tool' && m.content.includes('The sum of 2 and 3 is 5')), 'the result did not reach the next request')
    await matrix('73-mcp-tool-card', async () => {
      await app.evaluate(`${all('tool-card')}.find((c) => c.dataset.tool === 'mcp__everything__get-sum').scrollIntoView({ block: 'center' })`)
    })
  })

  await step('no server process is left once the app has exited', async () => {
    const pids = ['m-ev', 'm-repo', 'm-notes'].flatMap(markedPIDs)
    assert.ok(pids.length >= 6, `want three servers and their supervisors, found ${pids}`)
    await app.close()
    const deadline = Date.now() + 5000
    let left = pids
    while (Date.now() < deadline) {
      left = pids.filter((p) => existsSync(`/proc/${p}`) && !/\) Z /.test(readFileSync(`/proc/${p}/stat`, 'latin1')))
      if (left.length === 0) break
      await new Promise((r) => setTimeout(r, 50))
    }
    assert.deepEqual(left, [], 'server processes outlived the app')
  })
}
