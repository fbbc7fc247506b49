// The composer and MCP in the real window, against server-everything from npm
// (written by others; installed into testdata/mcp-servers by scripts/test.sh):
// the "/" menu lists every command with the server's prompts, one chosen asks
// for its arguments and fills the input, which is sent; "@" lists the server's
// resources and the one chosen goes with the message as an attached file; a
// tool that asks the user for a form shows it as a card answered in the
// window; a reasoning model's thoughts are a "Thinking" part. Shot at 900x650
// and 1440x900 in both themes.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startFakeLLM } from '../lib/fakellm.mjs'

export const timeoutMs = 300000

export async function setup({ tmp, repo, home }) {
  const everything = join(repo, 'testdata/mcp-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js')
  if (!existsSync(everything)) throw new Error(`${everything} is missing: run npm install --no-audit --no-fund in testdata/mcp-servers (scripts/test.sh does it)`)
  const rules = [
    { match: 'ask me for my details', response: { tool_calls: [{ name: 'mcp__everything__trigger-elicitation-request', arguments: '{}' }] } },
    { match: '*', on_tool_result: true, response: { text: 'The server says: ', echo: true } },
    { match: 'think it over', response: { reasoning: 'The user wants a plan. Step one: list what is known. Step two: weigh the options.', text: 'Here is the plan: start small.' } },
    { match: '*', response: { text: 'You said: ', echo: true } },
  ]
  const llm = await startFakeLLM({ binary: join(repo, 'build/bin/fakellm'), rules, dir: tmp })
  writeFileSync(
    join(home, 'settings.json'),
    JSON.stringify(
      {
        llm: { maxRetries: 0 },
        tools: { mcp: { enabled: true, startOnOpen: true, callTimeoutSeconds: 60 } },
        mcpServers: { everything: { command: 'node', args: [everything, 'stdio'] } },
      },
      null,
      2,
    ),
    { mode: 0o600 },
  )
  const docs = join(everything, '..', 'docs')
  return {
    llm,
    architecture: readFileSync(join(docs, 'architecture.md'), 'utf8'),
    env: { CREWAGENT_LLM_BASE_URL: llm.url, CREWAGENT_LLM_MODEL: 'gpt-4o-mini' },
    cleanup: () => llm.stop(),
  }
}

const sel = (id) => `document.querySelector('[data-testid="${id}"]')`
const all = (id) => `[...document.querySelectorAll('[data-testid="${id}"]')]`
const labels = `${all('composer-menu-item')}.map((li) => li.querySelector('.composer-menu-label').textContent)`

export default async function mcpComposer({ app, step, tmp, prepared }) {
  const workdir = join(tmp, 'work')
  mkdirSync(workdir, { recursive: true })
  const matrix = (name, prepare) => app.screenshots(name, prepare)
  const chats = async () => (await prepared.llm.requests()).filter((r) => r.path?.endsWith('/chat/completions'))
  const idle = (what) => app.waitFor(`${sel('chat-view')}?.dataset.streaming === 'false'`, { timeoutMs: 30000, what })
  const lastAssistant = () => app.evaluate(`${all('msg-assistant')}.pop()?.textContent ?? ''`)

  await step('a project opens and its server is ready', async () => {
    await app.waitForTestId('start-screen')
    await app.click('new-project-button')
    await app.typeInto('new-project-name-input', 'notes')
    await app.typeInto('new-project-parent-input', workdir)
    // The page's errors are kept, to say why if the workspace does not come
    // (it once stayed blank for 10 s after the project was created and opened).
    await app.evaluate(`(() => { window.__errs = []; window.addEventListener('error', (e) => window.__errs.push('E ' + e.message + ' ' + (e.error && e.error.stack))); window.addEventListener('unhandledrejection', (e) => window.__errs.push('R ' + (e.reason && (e.reason.stack || e.reason.message || JSON.stringify(e.reason))))); const ce = console.error; console.error = (...a) => { window.__errs.push('C ' + a.map(String).join(' ').slice(0, 500)); ce(...a) }; return true })()`)
    await app.click('new-project-submit')
    try {
      await app.waitForTestId('workspace-screen')
    } catch (e) {
      console.log(`    page errors: ${JSON.stringify(await app.evaluate('window.__errs'))}`)
      console.log(`    page: ${await app.evaluate('document.body.innerHTML.slice(0, 1500)')}`)
      throw e
    }
    await app.click('open-settings')
    await app.click('settings-tab-mcp')
    await app.waitFor(`${all('mcp-server')}.find((c) => c.dataset.name === 'everything')?.dataset.state === 'ready'`, { timeoutMs: 30000, what: 'the server to be ready' })
    await app.click('settings-screen-close')
    await app.click('conv-new')
    await app.waitForTestId('chat-view')
  })

  await step('"/" lists every command; a prompt chosen asks its arguments, fills the input and is sent', async () => {
    await app.typeInto('composer-input', '/')
    await app.waitFor(`${labels}.includes('/args-prompt')`, { timeoutMs: 15000, what: "the server's prompts in the menu" })
    const listed = await app.evaluate(labels)
    assert.equal(listed[0], '/compact')
    assert.ok(listed.includes('/simple-prompt'), `commands: ${listed}`)
    const line = await app.evaluate(`${all('composer-menu-item')}.find((li) => li.textContent.includes('/args-prompt')).textContent`)
    assert.match(line, /everything/)
    assert.match(line, /arguments: city \[state\]/)
    await matrix('80-composer-slash-menu', async () => {
      await app.evaluate(`${sel('composer-input')}.focus()`)
    })
    await app.typeInto('composer-input', '/args')
    await app.waitFor(`${labels}.join() === '/args-prompt'`, { what: 'the menu filtered' })
    await app.press('composer-input', 'Enter')
    await app.waitForTestId('prompt-form')
    assert.equal(await app.evaluate(`${sel('prompt-insert')}.disabled`), true, 'a required argument may be left out')
    await app.typeInto('prompt-arg-city', 'Lisbon')
    await matrix('81-composer-prompt-arguments')
    await app.click('prompt-insert')
    await app.waitFor(`${sel('composer-input')}.value === "What's weather in Lisbon?"`, { timeoutMs: 15000, what: 'the prompt in the input' })
    assert.equal(await app.exists('prompt-form'), false)
    await app.press('composer-input', 'Enter')
    await idle('the reply to the prompt')
    await app.waitFor(`${all('msg-assistant')}.length > 0`, { what: 'the reply' })
    assert.match(await lastAssistant(), /You said: What's weather in Lisbon\?/)
  })

  await step('"@" lists the resources; the one chosen is attached and reaches the model', async () => {
    await app.typeInto('composer-input', 'Summarize @')
    await app.waitFor(`${labels}.includes('@architecture.md')`, { timeoutMs: 15000, what: 'the resources in the menu' })
    await matrix('82-composer-resource-picker', async () => {
      await app.evaluate(`${sel('composer-input')}.focus()`)
    })
    await app.typeInto('composer-input', 'Summarize @archi')
    await app.waitFor(`${labels}.join() === '@architecture.md'`, { what: 'the resources filtered' })
    await app.press('composer-input', 'Enter')
    await app.waitFor(`${all('attachment-chip')}.some((c) => c.textContent.includes('architecture.md'))`, { timeoutMs: 15000, what: 'the attachment chip' })
    assert.equal(await app.evaluate(`${sel('composer-input')}.value`), 'Summarize ')
    await app.typeInto('composer-input', 'Summarize this')
    await matrix('83-composer-resource-attached')
    const before = (await chats()).length
    await app.press('composer-input', 'Enter')
    await idle('the reply with the resource')
    await app.waitFor(`${all('msg-attachments')}.some((a) => a.textContent.includes('architecture.md'))`, { what: 'the attachment on the message' })
    const sent = (await chats()).slice(before)
    const user = sent[0]?.messages?.filter((m) => m.role === 'user').pop()
    const body = JSON.stringify(user?.content ?? '')
    const firstLine = prepared.architecture.split('\n').find((l) => l.trim().length > 20).trim()
    assert.ok(body.includes(JSON.stringify(firstLine).slice(1, -1)), `the resource's text did not reach the model: ${body.slice(0, 400)}`)
  })

  await step('a form the server asks for is a card in the conversation, answered from the window', async () => {
    await app.typeInto('composer-input', 'ask me for my details')
    await app.press('composer-input', 'Enter')
    await app.waitForTestId('elicit-card', { timeoutMs: 20000 })
    const card = await app.text('elicit-card')
    assert.match(card, /The MCP server everything asks/)
    assert.match(card, /Please provide inputs for the following fields/)
    assert.equal(await app.evaluate(`${sel('elicit-integer')}.value`), '42')
    await app.click('elicit-accept')
    await app.waitFor(`${sel('elicit-card')}?.textContent.includes('Required')`, { what: 'the required field named' })
    await app.typeInto('elicit-name', 'Ada Lovelace')
    await app.evaluate(`${sel('elicit-check')}.click()`)
    await matrix('84-elicitation-card', async () => {
      await app.evaluate(`${sel('elicit-card')}.scrollIntoView({ block: 'nearest' })`)
    })
    await app.click('elicit-accept')
    await app.waitFor(`!${sel('elicit-card')}`, { what: 'the card to go' })
    await idle('the reply after the form')
    await app.waitFor(`${all('tool-card')}.some((c) => c.dataset.tool === 'mcp__everything__trigger-elicitation-request' && c.dataset.status === 'ok')`, { timeoutMs: 20000, what: 'the tool card' })
    const answer = await lastAssistant()
    assert.match(answer, /Name: Ada Lovelace/)
    assert.match(answer, /Agreed to terms: true/)
    assert.match(answer, /Favorite Integer: 42/)
  })

  await step('a reasoning model’s thoughts are a Thinking part', async () => {
    await app.typeInto('composer-input', 'think it over')
    await app.press('composer-input', 'Enter')
    await idle('the reasoned reply')
    await app.waitFor(`!!document.querySelector('.msg-thinking')`, { timeoutMs: 15000, what: 'the Thinking part' })
    await app.evaluate(`document.querySelector('.msg-thinking').open = true`)
    const thinking = await app.evaluate(`document.querySelector('.msg-thinking').textContent`)
    assert.match(thinking, /Thinking/)
    assert.match(thinking, /weigh the options/)
    assert.match(await lastAssistant(), /Here is the plan: start small/)
    // never sent back to the model
    await app.typeInto('composer-input', 'thanks')
    await app.press('composer-input', 'Enter')
    await idle('the last reply')
    const last = (await chats()).pop()
    assert.ok(!JSON.stringify(last.messages).includes('weigh the options'), 'the reasoning was sent back')
    await matrix('85-thinking-part', async () => {
      await app.evaluate(`document.querySelector('.msg-thinking').scrollIntoView({ block: 'center' })`)
    })
  })
}
