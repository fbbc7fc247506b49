// The window for daily use: tool cards in words (a name and a one-line
// summary; the tool's own name, call id and JSON only under Details), Ctrl+K
// to go to a conversation, Ctrl+F to find words in one (the list scrolls to
// each hit), `?` for the keys, a desktop notification over D-Bus when a reply
// ends while the window is in the background, and Settings saved as edited
// with the loop numbers under Advanced. Screenshots at 900x650 and 1440x900,
// light and dark; the tool cards in Chinese too.
import assert from 'node:assert/strict'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { join } from 'node:path'
import { startFakeLLM } from '../lib/fakellm.mjs'
import { start, stop } from '../lib/proc.mjs'

export const timeoutMs = 180000

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** A session message bus of the spec's own, and a monitor writing every
 * call to the desktop's notification service into a file. */
async function notificationBus(tmp) {
  const daemon = start('dbus-daemon', ['--session', '--nofork', '--print-address=1', `--address=unix:dir=${tmp}`], { stdio: ['ignore', 'pipe', 'ignore'] })
  const address = await new Promise((resolve, reject) => {
    const lines = createInterface({ input: daemon.stdout })
    lines.once('line', (l) => resolve(l.trim()))
    daemon.once('error', (err) => reject(new Error(`cannot start dbus-daemon (${err.message}); install the dbus package`)))
    setTimeout(() => reject(new Error('dbus-daemon printed no address')), 10000)
  })
  const log = join(tmp, 'notifications.log')
  writeFileSync(log, '')
  const monitor = start('sh', ['-c', `exec dbus-monitor --address "$0" "interface='org.freedesktop.Notifications',member='Notify'" >> "$1"`, address, log], { stdio: 'ignore' })
  await sleep(300)
  return { address, log, stop: async () => Promise.all([stop(monitor), stop(daemon)]) }
}

export async function setup({ tmp, repo }) {
  const rules = [
    { match: 'list the files', response: { tool_calls: [{ name: 'fs.list', arguments: '{"path":"@project"}' }] } },
    { match: 'read the notes', response: { tool_calls: [{ name: 'fs.read', arguments: '{"path":"@project/notes.md"}' }] } },
    { match: 'write the plan', response: { tool_calls: [{ name: 'fs.write', arguments: JSON.stringify({ path: '@project/plan.md', content: '# Plan\n\n- venue\n- budget\n- dates\n' }) }] } },
    { match: 'budget', response: { text: 'The budget for the offsite is **4,711 EUR**, catering included.', chunks: 3 } },
    { match: '*', on_tool_result: true, response: { text: 'Done: the card above says what the tool did.', chunks: 2 } },
    { match: '*', response: { text: 'Noted.', chunks: 2 } },
  ]
  const llm = await startFakeLLM({ binary: join(repo, 'build/bin/fakellm'), rules, dir: tmp })
  const bus = await notificationBus(tmp)
  return {
    llm,
    bus,
    env: { CREWAGENT_LLM_BASE_URL: llm.url, CREWAGENT_LLM_MODEL: 'gpt-4o-mini', DBUS_SESSION_BUS_ADDRESS: bus.address },
    cleanup: async () => {
      await llm.stop()
      await bus.stop()
    },
  }
}

const sel = (id) => `document.querySelector('[data-testid="${id}"]')`
const all = (id) => `[...document.querySelectorAll('[data-testid="${id}"]')]`

export default async function windowSpec({ app, step, tmp, prepared }) {
  const workdir = join(tmp, 'work')
  mkdirSync(workdir, { recursive: true })
  const matrix = (name, prepare) => app.screenshots(name, prepare)
  const waitIdle = () => app.waitFor(`${sel('chat-view')}?.dataset.streaming === 'false'`, { timeoutMs: 20000, what: 'the reply to end' })
  const send = async (text) => {
    await app.typeInto('composer-input', text)
    await app.press('composer-input', 'Enter')
    await app.waitFor(`${all('msg-user')}.some((m) => m.textContent.includes(${JSON.stringify(text)}))`, { timeoutMs: 10000, what: `the message "${text}"` })
    await waitIdle()
  }
  const language = async (lang) => {
    await app.click('open-settings')
    await app.waitForTestId('language-choice')
    await app.click(`set-language-${lang}`)
    await app.waitFor(`document.documentElement.lang === ${JSON.stringify(lang)}`, { what: `the page in ${lang}` })
    await app.click('settings-cancel')
  }

  await step('a project with two conversations', async () => {
    await app.waitForTestId('start-screen')
    await app.click('new-project-button')
    await app.typeInto('new-project-name-input', 'offsite')
    await app.typeInto('new-project-parent-input', workdir)
    await app.click('new-project-submit')
    await app.waitForTestId('workspace-screen')
    writeFileSync(join(workdir, 'offsite', 'notes.md'), '# Offsite\n\nLakeside hall, 14 people.\nBudget to confirm.\n')
    await app.click('empty-new-conversation')
    await app.waitForTestId('chat-empty')
    await send('what is the budget?')
    await app.click('conv-new')
    await app.waitForTestId('chat-empty')
  })

  await step('tool cards say what each call did in words; the raw call is under Details', async () => {
    await send('list the files')
    await send('read the notes')
    await send('write the plan')
    await app.waitFor(`${all('tool-card')}.length === 3`, { what: 'three tool cards' })
    const cards = await app.evaluate(`${all('tool-card')}.map((c) => [c.querySelector('[data-testid="tool-title"]').textContent, c.querySelector('[data-testid="tool-words"]').textContent])`)
    assert.deepEqual(cards.map((c) => c[0]), ['List files', 'Read file', 'Write file'])
    assert.match(cards[0][1], /^Listed \d+ files$/)
    assert.deepEqual(cards.slice(1).map((c) => c[1]), ['Read notes.md (4 lines)', 'Created plan.md (+5 −0)'])
    const shown = await app.evaluate(`${sel('chat-view')}.innerText`)
    assert.doesNotMatch(shown, /fs\.(list|read|write)|call_|\{"/, 'internal names on the folded cards')
    await app.evaluate(`${all('tool-toggle')}[1].click()`)
    await app.waitForTestId('tool-ids')
    assert.match(await app.text('tool-ids'), /^Tool fs\.read · call /)
    await matrix('window-tool-cards', () => app.evaluate(`${all('tool-card')}[0].scrollIntoView({ block: 'start' })`))
    await app.evaluate(`${all('tool-toggle')}[1].click()`)
    await language('zh-CN')
    const zh = await app.evaluate(`${all('tool-card')}.map((c) => c.querySelector('[data-testid="tool-words"]').textContent)`)
    assert.match(zh[0], /^列出了 \d+ 个文件$/)
    assert.deepEqual(zh.slice(1), ['读取了 notes.md（4 行）', '新建了 plan.md（+5 −0）'])
    await matrix('window-tool-cards-zh', () => app.evaluate(`${all('tool-card')}[0].scrollIntoView({ block: 'start' })`))
    await language('en')
  })

  await step('Ctrl+K goes to a conversation by its title', async () => {
    await app.press(null, 'k', { ctrl: true })
    await app.waitForTestId('switcher')
    assert.equal(await app.evaluate(`${all('switcher-item')}.length`), 2)
    await matrix('window-switcher')
    await app.typeInto('switcher-input', 'budget')
    await app.waitFor(`${all('switcher-item')}.length === 1`, { what: 'one conversation left' })
    await app.press('switcher-input', 'Enter')
    await app.waitFor(`!${sel('switcher')}`, { what: 'the switcher to close' })
    await app.waitFor(`${all('msg-assistant')}.some((m) => m.textContent.includes('4,711 EUR'))`, { what: 'the budget conversation' })
  })

  await step('Ctrl+F finds words in the conversation and scrolls to each hit', async () => {
    const other = await app.evaluate(`(() => { const b = ${all('conv-item')}.find((el) => !el.textContent.includes('budget'))?.querySelector('[data-testid="conv-open"]'); if (!b) return false; b.click(); return true })()`)
    assert.equal(other, true, 'no other conversation in the list')
    await app.waitFor(`${all('tool-card')}.length === 3`, { what: 'the conversation with the tool cards' })
    await app.resize(900, 650)
    await app.press(null, 'f', { ctrl: true })
    await app.waitForTestId('find-bar')
    assert.equal(await app.evaluate(`document.activeElement === ${sel('find-input')}`), true, 'the search field has no focus')
    await app.typeInto('find-input', 'list the files')
    await app.waitFor(`${sel('find-count')}?.dataset.count === '1'`, { what: 'one hit' })
    await app.waitFor(`(() => { const r = document.querySelector('.row[data-find]')?.getBoundingClientRect(); const l = ${sel('message-list')}.getBoundingClientRect(); return !!r && r.top >= l.top - 1 && r.bottom <= l.bottom + 1 })()`, {
      what: 'the hit scrolled into view',
    })
    assert.equal(await app.text('find-count'), '1 of 1')
    await matrix('window-find', async () => {
      await app.press('find-input', 'Enter')
      await sleep(200)
    })
    await app.press('find-input', 'Escape')
    await app.waitFor(`!${sel('find-bar')}`, { what: 'the search to close' })
  })

  await step('? shows the keys, but not while typing', async () => {
    await app.evaluate(`document.activeElement?.blur(); true`)
    await app.press(null, '?', { shift: true })
    await app.waitForTestId('shortcuts-sheet')
    assert.ok((await app.evaluate(`${all('shortcut-row')}.length`)) >= 10)
    await matrix('window-shortcuts')
    await app.click('shortcuts-sheet-close')
    await app.evaluate(`${sel('composer-input')}.focus(); true`)
    await app.press('composer-input', '?', { shift: true })
    await sleep(200)
    assert.equal(await app.exists('shortcuts-sheet'), false, 'the sheet opened while typing')
  })

  await step('a reply that ends while the window is in the background shows a desktop notification', async () => {
    await app.evaluate(`window.dispatchEvent(new Event('blur')); true`)
    await send('what is the budget now?')
    const until = Date.now() + 10000
    let log = ''
    while (Date.now() < until) {
      log = readFileSync(prepared.bus.log, 'utf8')
      if (log.includes('Reply ready')) break
      await sleep(100)
    }
    assert.match(log, /member=Notify/, 'no call to org.freedesktop.Notifications')
    assert.match(log, /string "Reply ready"/)
    const before = log.split('member=Notify').length
    // focused: none
    await app.evaluate(`window.dispatchEvent(new Event('focus')); true`)
    await send('and the budget after that?')
    await sleep(500)
    assert.equal(readFileSync(prepared.bus.log, 'utf8').split('member=Notify').length, before, 'a notification while the window has the focus')
  })

  await step('Settings are saved as edited, with Saved beside the field; loop numbers under Advanced', async () => {
    await app.click('open-settings')
    await app.waitForTestId('settings-form')
    await app.click('settings-tab-tools')
    assert.equal(await app.evaluate(`${sel('settings-advanced-loop')}.open`), false, 'the loop numbers are not folded')
    await app.evaluate(`${sel('settings-advanced-loop')}.querySelector('summary').click(); true`)
    await app.evaluate(`${sel('set-engine.maxTurns')}.focus(); true`)
    await app.typeInto('set-engine.maxTurns', '40')
    await app.waitForTestId('saved-engine.maxTurns')
    await app.waitForTestId('settings-saved')
    const settings = JSON.parse(readFileSync(join(app.home, 'settings.json'), 'utf8'))
    assert.equal(settings.engine.maxTurns, 40)
    assert.equal(await app.exists('settings-save'), false, 'a Save button')
    await matrix('window-settings-saved', () => app.evaluate(`${sel('set-engine.maxTurns')}.scrollIntoView({ block: 'center' }); true`))
    await app.click('settings-tab-general')
    await app.evaluate(`${sel('set-notify')}.scrollIntoView({ block: 'center' }); true`)
    assert.equal(await app.evaluate(`${sel('set-notify')}.checked`), true, 'notifications are off by default')
    await app.screenshot('window-settings-notify')
    await app.click('settings-cancel')
  })
}
