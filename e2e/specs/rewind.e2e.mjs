// Rewind in the real window: the model writes two files in two turns;
// "Undo this change" on the second write's card puts that one file back
// (and Redo puts the change back again); "Rewind to here" on the second
// message restores the files changed from there on, keeps a file changed
// on disk since (listed in the dialog), and opens a fork that ends before
// the message. Screens at 900x650 and 1440x900 in both themes.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startFakeLLM } from '../lib/fakellm.mjs'

export const timeoutMs = 300000

export async function setup({ tmp, repo }) {
  const root = join(tmp, 'project')
  mkdirSync(root, { recursive: true })
  writeFileSync(join(root, 'notes.md'), '# Notes\nship on friday\n')
  const rules = [
    { match: 'write the plan', response: { tool_calls: [{ name: 'fs.write', arguments: JSON.stringify({ path: '@project/plan.md', content: '# Plan\n1. pack\n' }) }] } },
    { match: 'move it to monday', response: { tool_calls: [{ name: 'fs.write', arguments: JSON.stringify({ path: '@project/notes.md', content: '# Notes\nship on monday\n' }) }] } },
    { match: '*', on_tool_result: true, response: { text: 'Done.' } },
    { match: '*', response: { text: 'Hello there.' } },
  ]
  const llm = await startFakeLLM({ binary: join(repo, 'build/bin/fakellm'), rules, dir: tmp })
  return {
    llm,
    root,
    env: { CREWAGENT_LLM_BASE_URL: llm.url, CREWAGENT_LLM_MODEL: 'gpt-4o-mini' },
    cleanup: () => llm.stop(),
  }
}

const sel = (id) => `document.querySelector('[data-testid="${id}"]')`
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

export default async function rewind({ app, step, prepared }) {
  const { root } = prepared
  const file = (f) => (existsSync(join(root, f)) ? readFileSync(join(root, f), 'utf8') : null)
  const send = async (text) => {
    await app.typeInto('composer-input', text)
    await app.press('composer-input', 'Enter')
  }
  const waitIdle = (what) => app.waitFor(`${sel('chat-view')}?.dataset.streaming === 'false'`, { timeoutMs: 30000, what })
  const writeCard = (path) => `[...document.querySelectorAll('[data-testid="tool-card"][data-tool="fs.write"]')].find((c) => c.querySelector('[data-testid="tool-words"]')?.textContent.includes(${JSON.stringify(path)}))`
  const clickIn = async (root, id, what) => {
    await app.waitFor(`!!${root}?.querySelector('[data-testid="${id}"]:not([disabled])')`, { what })
    await app.evaluate(`${root}.querySelector('[data-testid="${id}"]').click()`)
  }
  const dialog = sel('restore-dialog')

  const matrix = (name) => app.screenshots(name, undefined, { settleMs: 200 })

  let conv = ''
  await step('three turns: a greeting, then two writes', async () => {
    await app.waitForTestId('start-screen')
    await app.typeInto('open-path-input', root)
    await app.click('open-path-submit')
    await app.waitForTestId('workspace-screen')
    await app.click('conv-new')
    await app.waitForTestId('chat-view')
    conv = await app.evaluate(`${sel('chat-view')}.dataset.conversation`)
    await send('hello')
    await waitIdle('the greeting')
    await send('write the plan')
    await waitIdle('the plan')
    await send('move it to monday')
    await waitIdle('the move')
    assert.equal(file('plan.md'), '# Plan\n1. pack\n')
    assert.equal(file('notes.md'), '# Notes\nship on monday\n')
  })

  await step('Undo this change puts back the one write, Redo puts the change back', async () => {
    await clickIn(writeCard('notes.md'), 'tool-undo', 'Undo this change on the notes.md card')
    await app.waitFor(`/notes\\.md/.test(${sel('restore-restored')}?.textContent ?? '')`, { what: 'the dialog listing notes.md' })
    assert.equal(await app.evaluate(`${sel('restore-restored')}.textContent.includes('plan.md')`), false, 'the undo lists the other write')
    assert.equal(file('notes.md'), '# Notes\nship on monday\n', 'the dialog changed the file')
    await matrix('rewind-undo-dialog')
    await clickIn(dialog, 'restore-confirm', 'Undo in the dialog')
    await app.waitFor(`!!${writeCard('notes.md')}?.querySelector('[data-testid="tool-undone"]')`, { what: 'the card says undone' })
    assert.equal(file('notes.md'), '# Notes\nship on friday\n')
    assert.equal(file('plan.md'), '# Plan\n1. pack\n', 'the undo touched the other write')
    await matrix('rewind-undone-card')
    await clickIn(writeCard('notes.md'), 'tool-redo', 'Redo on the card')
    await app.waitFor(`!!${writeCard('notes.md')}?.querySelector('[data-testid="tool-undo"]')`, { what: 'Undo offered again' })
    assert.equal(file('notes.md'), '# Notes\nship on monday\n')
  })

  await step('Rewind to here restores the files from that message on, keeps an edit made since, and opens the fork', async () => {
    // Changed on disk since the model wrote it: kept unless ticked.
    writeFileSync(join(root, 'plan.md'), '# Plan\n1. pack\n2. my own line\n')
    const row = `[...document.querySelectorAll('[data-testid="msg-user"]')].find((r) => r.textContent.includes('write the plan'))`
    await clickIn(row, 'msg-rewind', 'Rewind to here on the second message')
    await app.waitFor(`/notes\\.md/.test(${sel('restore-restored')}?.textContent ?? '') && /plan\\.md/.test(${sel('restore-kept')}?.textContent ?? '')`, {
      what: 'the dialog listing notes.md to restore and plan.md kept',
    })
    assert.equal(await app.evaluate(`${sel('restore-what-both')}.checked`), true)
    await matrix('rewind-dialog')
    await clickIn(dialog, 'restore-confirm', 'Rewind in the dialog')
    await app.waitFor(`!${dialog} && ${sel('chat-view')}?.dataset.conversation !== ${JSON.stringify(conv)}`, { what: 'the fork opened' })
    assert.equal(file('notes.md'), '# Notes\nship on friday\n')
    assert.equal(file('plan.md'), '# Plan\n1. pack\n2. my own line\n', 'the edit made since was not kept')
    await app.waitFor(`document.querySelectorAll('[data-testid="msg-user"]').length === 1`, { what: 'the fork ends before the message' })
    await sleep(300)
    assert.equal(await app.evaluate(`/E_NOT_FOUND|has no message/.test(document.body.textContent)`), false, 'an error is shown after the rewind')
    const users = await app.evaluate(`[...document.querySelectorAll('[data-testid="msg-user"]')].map((r) => r.textContent).join('|')`)
    assert.match(users, /hello/)
    assert.doesNotMatch(users, /write the plan/)
    await matrix('rewind-fork')
  })
}
