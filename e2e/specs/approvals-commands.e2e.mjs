// Approvals and commands in the real window: in Ask mode (chosen in the
// composer) a write waits with its diff; Deny with a reason reaches the
// model; Allow writes the file. A command asks too, then streams its output
// (colours and all) into its card while it runs, and the card's Stop kills
// it. Screens at 900x650 and 1440x900 in both themes.
import assert from 'node:assert/strict'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startFakeLLM } from '../lib/fakellm.mjs'

export const timeoutMs = 300000

const loop = 'for i in $(seq 1 80); do printf "\\033[32mok\\033[0m step %d \\033[1;31m<b>not bold</b>\\033[0m\\n" $i; echo "tick $i" >> ticks.txt; echo "warning $i" >&2; sleep 0.4; done'

export async function setup({ tmp, repo, home }) {
  const root = join(tmp, 'project')
  mkdirSync(root, { recursive: true })
  writeFileSync(join(root, 'notes.md'), '# Notes\nship on friday\n')
  const rules = [
    { match: 'move it to monday', response: { tool_calls: [{ name: 'fs.write', arguments: JSON.stringify({ path: '@project/notes.md', content: '# Notes\nship on monday\n' }) }] } },
    { match: 'tuesday then', response: { tool_calls: [{ name: 'fs.write', arguments: JSON.stringify({ path: '@project/notes.md', content: '# Notes\nship on tuesday\n' }) }] } },
    { match: 'run the loop', response: { tool_calls: [{ name: 'shell.run', arguments: JSON.stringify({ command: loop }) }] } },
    { match: '*', on_tool_result: true, response: { text: 'The tool said: ', echo: true } },
    { match: '*', response: { text: 'Noted.' } },
  ]
  const llm = await startFakeLLM({ binary: join(repo, 'build/bin/fakellm'), rules, dir: tmp })
  // Commands in plain chat (they are off there by default).
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ tools: { shell: { enabled: true, inChat: true, timeoutSeconds: 120 } } }, null, 2), { mode: 0o600 })
  return {
    llm,
    root,
    env: { CREWAGENT_LLM_BASE_URL: llm.url, CREWAGENT_LLM_MODEL: 'gpt-4o-mini' },
    cleanup: () => llm.stop(),
  }
}

const sel = (id) => `document.querySelector('[data-testid="${id}"]')`
const all = (id) => `[...document.querySelectorAll('[data-testid="${id}"]')]`
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

export default async function approvals({ app, step, prepared }) {
  const { llm, root } = prepared
  const send = async (text) => {
    await app.typeInto('composer-input', text)
    await app.press('composer-input', 'Enter')
  }
  const waitIdle = (what, timeoutMs = 30000) => app.waitFor(`${sel('chat-view')}?.dataset.streaming === 'false'`, { timeoutMs, what: what ?? 'the reply to end' })
  const notes = () => readFileSync(join(root, 'notes.md'), 'utf8')
  const lastCard = (tool) => `[...document.querySelectorAll('[data-testid="tool-card"][data-tool="${tool}"]')].pop()`
  const waitingApproval = (tool) => `${lastCard(tool)}?.querySelector('[data-testid="approval"][data-state="waiting"]')`
  const clickIn = async (tool, id) => {
    await app.waitFor(`!!${lastCard(tool)}?.querySelector('[data-testid="${id}"]:not([disabled])')`, { what: `${id} in the ${tool} card` })
    await app.evaluate(`${lastCard(tool)}.querySelector('[data-testid="${id}"]').click()`)
  }

  const matrix = (name, prepare) => app.screenshots(name, prepare, { settleMs: 150 })

  await step('open the project and choose Ask in the composer', async () => {
    await app.waitForTestId('start-screen')
    await app.typeInto('open-path-input', root)
    await app.click('open-path-submit')
    await app.waitForTestId('workspace-screen')
    await app.click('conv-new')
    await app.waitForTestId('chat-view')
    await app.waitForTestId('approval-mode')
    // The app was started with CREWAGENT_APPROVE=full-auto: the conversation's own choice wins.
    assert.equal(await app.evaluate(`${sel('approval-mode')}.value`), 'full-auto')
    await app.evaluate(`(() => { const el = ${sel('approval-mode')};
      Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set.call(el, 'ask');
      el.dispatchEvent(new Event('change', { bubbles: true })); return true })()`)
    await app.waitFor(`${sel('approval-mode')}.value === 'ask' && /chosen for this conversation/.test(${sel('approval-mode')}.closest('label').title)`, {
      what: 'the conversation in Ask mode',
    })
  })

  await step('an Ask-mode write waits with its diff', async () => {
    await send('move it to monday')
    await app.waitFor(`!!${waitingApproval('fs.write')}`, { timeoutMs: 20000, what: 'the approval card' })
    const diff = await app.evaluate(`${lastCard('fs.write')}.querySelector('[data-testid="approval-diff"]')?.textContent ?? ''`)
    assert.match(diff, /-ship on friday/)
    assert.match(diff, /\+ship on monday/)
    assert.equal(notes(), '# Notes\nship on friday\n', 'the file changed before the answer')
    await matrix('approvals-write-diff')
  })

  await step('Deny with a reason: the model receives it, the file stays', async () => {
    await clickIn('fs.write', 'approval-deny')
    await app.waitForTestId('approval-reason')
    await app.typeInto('approval-reason', 'keep friday, the release is fixed')
    await clickIn('fs.write', 'approval-deny-send')
    await waitIdle('the reply after the denial')
    const reqs = await llm.requests()
    const last = reqs[reqs.length - 1]
    const tool = last.messages.filter((m) => m.role === 'tool').pop()
    assert.ok(tool, 'no tool result reached the model')
    assert.match(tool.content, /keep friday, the release is fixed/)
    assert.equal(notes(), '# Notes\nship on friday\n')
    await app.waitFor(`${lastCard('fs.write')}?.querySelector('[data-testid="approval"]')?.dataset.state === 'denied'`, { what: 'the card says denied' })
    await matrix('approvals-denied')
  })

  await step('Allow: the second write runs and the file is on disk', async () => {
    await send('tuesday then')
    await app.waitFor(`!!${waitingApproval('fs.write')}`, { timeoutMs: 20000, what: 'the second approval card' })
    await clickIn('fs.write', 'approval-allow')
    await waitIdle('the reply after Allow')
    assert.equal(notes(), '# Notes\nship on tuesday\n')
  })

  await step('a command streams its output into its card while it runs', async () => {
    await send('run the loop')
    await app.waitFor(`!!${waitingApproval('shell.run')}`, { timeoutMs: 20000, what: 'the command approval card' })
    const command = await app.evaluate(`${lastCard('shell.run')}.querySelector('[data-testid="approval-command"]')?.textContent ?? ''`)
    assert.match(command, /seq 1 80/)
    await clickIn('shell.run', 'approval-allow')
    const live = `${lastCard('shell.run')}?.querySelector('[data-testid="tool-live-text"]')`
    await app.waitFor(`/step 2 /.test(${live}?.textContent ?? '')`, { timeoutMs: 20000, what: 'the first lines of the command' })
    const first = await app.evaluate(`${live}.textContent.length`)
    await app.waitFor(`${live}.textContent.length > ${first}`, { what: 'more output while it runs' })
    const text = await app.evaluate(`${live}.textContent`)
    assert.match(text, /warning 1\n/, 'stderr is not in the card')
    assert.doesNotMatch(text, /\x1b|\[32m/, 'escape codes shown as text')
    assert.match(text, /<b>not bold<\/b>/, 'HTML in the output must stay text')
    assert.equal(await app.evaluate(`!!${live}.querySelector('b')`), false)
    assert.equal(await app.evaluate(`${live}.querySelector('span.ansi-fg-2')?.textContent`), 'ok')
    assert.equal(await app.evaluate(`!!${lastCard('shell.run')}.querySelector('[data-testid="tool-stop"]')`), true, 'no Stop in the card')
    await app.waitFor(`/step 5 /.test(${live}?.textContent ?? '')`, { timeoutMs: 20000, what: 'a few more lines' })
    await matrix('command-live-output')
  })

  await step("the card's Stop kills the command; the card says stopped", async () => {
    await clickIn('shell.run', 'tool-stop')
    await waitIdle('the reply to stop')
    await app.waitFor(`${lastCard('shell.run')}?.querySelector('[data-testid="tool-status"]')?.textContent.startsWith('stopped')`, {
      timeoutMs: 15000,
      what: 'the card to say stopped',
    })
    const ticks = () => readFileSync(join(root, 'ticks.txt'), 'utf8').trim().split('\n').length
    const n = ticks()
    assert.ok(n < 80, `the command ran to its end (${n} ticks)`)
    await sleep(1500)
    assert.equal(ticks(), n, 'the command still runs after Stop')
    assert.equal(await app.exists('tool-live'), false, 'the live output stayed after the result')
    await matrix('command-stopped')
  })
}
