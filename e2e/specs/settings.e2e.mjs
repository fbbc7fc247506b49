// The first run and Settings in the real window: no LLM configured, a fake
// "Ollama" on its usual port (127.0.0.1:11434) that the app finds by itself
// and offers in words; using it; a new project in the default location
// (made on demand); a message answered by the model chosen; the settings
// dialog, whose size does not change from page to page, with human units
// in both directions and clear errors; Test connection listing the models;
// and the "System" theme following the desktop live (an XSETTINGS daemon
// switches the GTK theme as a desktop would). Screenshots at 900x650 and
// 1440x900, light and dark.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import { join } from 'node:path'
import { screenSizes } from '../lib/app.mjs'
import { startFakeLLM } from '../lib/fakellm.mjs'
import { start, stop } from '../lib/proc.mjs'

export const timeoutMs = 240000

const ollamaAddr = '127.0.0.1:11434'
const models = ['llama3.2:3b', 'mistral:7b', 'qwen2.5-coder:7b']

/** Fails clearly when something else already listens where Ollama would. */
async function assertFree(addr) {
  const [host, port] = addr.split(':')
  const busy = await new Promise((resolve) => {
    const s = net.connect({ host, port: Number(port) })
    s.once('connect', () => (s.destroy(), resolve(true)))
    s.once('error', () => resolve(false))
  })
  if (busy) throw new Error(`${addr} is in use (a real Ollama?): this spec plays Ollama there; stop it and run again`)
}

export async function setup({ tmp, repo }) {
  await assertFree(ollamaAddr)
  const user = join(tmp, 'user')
  mkdirSync(join(user, 'Documents'), { recursive: true })
  const llm = await startFakeLLM({
    binary: join(repo, 'build/bin/fakellm'),
    dir: tmp,
    addr: ollamaAddr,
    models,
    rules: [{ match: '*', response: { text: 'You said: ', echo: true, chunks: 3 } }],
  })
  return {
    user,
    llm,
    // the user's home folder (documents, default project location) is the spec's own
    env: { HOME: user, XDG_DOCUMENTS_DIR: '', CREWAGENT_LLM_BASE_URL: '', CREWAGENT_LLM_MODEL: '', CREWAGENT_LLM_API_KEY: '' },
    cleanup: () => llm.stop(),
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

export default async function settingsSpec({ app, step, tmp, home, prepared }) {
  const { user, llm } = prepared
  const sel = (id) => `document.querySelector('[data-testid="${id}"]')`
  const matrix = (name, prepare) => app.screenshots(name, prepare, { theme: "document.documentElement.dataset.themeChoice === 'dark' ? 'dark' : 'light'" })
  const settingsFile = () => JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8'))
  // Settings are saved as they are edited: wait until settings.json says so.
  const savedAs = async (what, ok) => {
    const until = Date.now() + 5000
    for (;;) {
      try {
        if (ok(settingsFile())) return
      } catch {
        // being written
      }
      if (Date.now() > until) throw new Error(`settings.json never had ${what}`)
      await sleep(50)
    }
  }
  const value = (id) => app.evaluate(`${sel(id)}?.value ?? null`)

  await step('first run: the local server is found and offered in words', async () => {
    await app.waitForTestId('first-run-offer', { timeoutMs: 15000 })
    assert.equal(await app.text('first-run-offer-text'), 'Ollama is running on this computer with 3 models')
    assert.match(await app.text('first-run-offer'), /— use it\?/)
    assert.deepEqual(await app.evaluate(`[...${sel('first-run-model')}.options].map((o) => o.value)`), models)
    const probes = (await llm.requests()).filter((r) => r.path === '/v1/models')
    assert.ok(probes.length >= 1 && probes.every((r) => r.method === 'GET'), 'the app did not ask the server for its models')
    assert.equal(existsSync(join(home, 'settings.json')), false, 'settings were written before the user chose')
    await matrix('70-first-run')
  })

  await step('using it saves the server and the chosen model', async () => {
    await app.evaluate(`(() => { const s = ${sel('first-run-model')}; s.value = 'mistral:7b'; s.dispatchEvent(new Event('change', { bubbles: true })); return true })()`)
    await app.click('first-run-use')
    await app.waitForTestId('first-run-done')
    assert.match(await app.text('first-run-done'), /CrewAgent will use mistral:7b on Ollama/)
    const s = settingsFile()
    assert.equal(s.llm.baseUrl, 'http://127.0.0.1:11434/v1')
    assert.equal(s.llm.model, 'mistral:7b')
    assert.equal(s.llm.apiKey, '')
    assert.equal(s.theme, 'system', 'a new user does not follow the system theme')
    assert.equal(await app.exists('first-run'), false)
    await app.screenshot('71-first-run-done')
  })

  const location = join(user, 'Documents', 'CrewAgent Projects')
  await step('a new project is proposed in the default location, made on demand', async () => {
    await app.click('new-project-button')
    await app.waitFor(`${sel('new-project-parent-input')}?.value === ${JSON.stringify(location)}`, { what: 'the default location in the form' })
    assert.equal(existsSync(location), false, 'the default location was made before it was needed')
    await app.typeInto('new-project-name-input', 'first-book')
    assert.match(await app.text('new-project-preview'), /Creates the folder .*CrewAgent Projects\/first-book \(and its location, if it is not there yet\)/)
    await matrix('72-new-project-default-location')
    // another folder, then back to the default
    await app.typeInto('new-project-parent-input', tmp)
    await app.waitForTestId('new-project-default')
    await app.click('new-project-default')
    assert.equal(await value('new-project-parent-input'), location)
    await app.click('new-project-submit')
    await app.waitForTestId('workspace-screen', { timeoutMs: 15000 })
    assert.ok(existsSync(join(location, 'first-book', '.crewagent.json')), 'the project was not created in the default location')
  })

  await step('a message is answered by the local model chosen', async () => {
    await app.click('conv-new')
    await app.typeInto('composer-input', 'hello from the first run')
    await app.press('composer-input', 'Enter')
    await app.waitFor(`[...document.querySelectorAll('[data-testid="msg-assistant"]')].some((el) => el.textContent.includes('You said: hello from the first run'))`, {
      timeoutMs: 20000,
      what: 'the answer of the local model',
    })
    const chats = (await llm.requests()).filter((r) => r.path === '/v1/chat/completions')
    assert.equal(chats.at(-1).model, 'mistral:7b', 'the request did not go to the model chosen')
  })

  const tabs = ['general', 'models', 'context', 'tools', 'packages']
  await step('settings: the dialog keeps its size and place on every page', async () => {
    await app.click('open-settings')
    await app.waitForTestId('settings-form')
    for (const size of screenSizes) {
      await app.resize(size.width, size.height)
      const boxes = []
      for (const tab of tabs) {
        await app.click(`settings-tab-${tab}`)
        await app.waitForTestId(`settings-panel-${tab}`)
        await sleep(100)
        boxes.push(
          await app.evaluate(`(() => {
            const r = (el) => { const b = el.getBoundingClientRect(); return [Math.round(b.left), Math.round(b.top), Math.round(b.width), Math.round(b.height)].join(',') }
            return { tab: ${JSON.stringify(tab)}, dialog: r(${sel('settings-screen')}), nav: r(document.querySelector('.settings-nav')),
              panel: r(document.querySelector('.settings-panel')), close: r(${sel('settings-cancel')}) } })()`),
        )
      }
      for (const b of boxes.slice(1)) {
        for (const k of ['dialog', 'nav', 'panel', 'close']) assert.equal(b[k], boxes[0][k], `${size.name}: the ${k} moved on the ${b.tab} page (${b[k]} vs ${boxes[0][k]})`)
      }
      const [, , w, h] = boxes[0].dialog.split(',').map(Number)
      assert.ok(w <= size.width && h <= size.height, `${size.name}: the dialog (${w}x${h}) does not fit the window`)
      console.log(`    ${size.name}: the dialog is ${w}x${h} on every page`)
    }
    await app.resize(1280, 800)
    for (const tab of tabs) {
      await app.click(`settings-tab-${tab}`)
      await matrix(`73-settings-${tab}`, async () => {
        await app.click(`settings-tab-${tab}`)
        await sleep(50)
      })
    }
  })

  await step('settings: sizes, shares and counts in human units, both ways', async () => {
    await app.click('settings-tab-tools')
    assert.equal(await value('set-tools.fs.maxReadBytes'), '512 KB')
    assert.equal(await value('set-tools.fs.maxWriteBytes'), '2 MB')
    await app.click('settings-tab-context')
    assert.equal(await value('set-context.tokenBudget'), '128,000')
    assert.equal(await value('set-context.triggerThreshold'), '95 %')
    assert.equal(await value('set-context.targetAfterCompression'), '60 %')
    await app.click('settings-tab-general')
    assert.equal(await value('set-llm.timeoutSeconds'), '2 min')

    await app.click('settings-tab-tools')
    await app.typeInto('set-tools.fs.maxReadBytes', '1 MB')
    await app.click('settings-tab-context')
    await app.typeInto('set-context.tokenBudget', '32k')
    await app.typeInto('set-context.triggerThreshold', '85%')
    await savedAs('the three values', (f) => f.context.triggerThreshold === 0.85 && f.context.tokenBudget === 32000)
    await app.waitForTestId('settings-saved')
    const s = settingsFile()
    assert.equal(s.tools.fs.maxReadBytes, 1048576)
    assert.equal(s.context.tokenBudget, 32000)
    assert.equal(s.context.triggerThreshold, 0.85)
    assert.equal(s.llm.model, 'mistral:7b', 'an untouched field changed')
    // read back as the user wrote it
    await app.click('settings-screen-close')
    await app.click('open-settings')
    await app.waitForTestId('settings-form')
    await app.click('settings-tab-context')
    assert.equal(await value('set-context.tokenBudget'), '32,000')
    assert.equal(await value('set-context.triggerThreshold'), '85 %')
  })

  await step('settings: a value that is not one says so, and nothing is saved', async () => {
    const before = readFileSync(join(home, 'settings.json'), 'utf8')
    await app.click('settings-tab-tools')
    await app.typeInto('set-tools.fs.maxWriteBytes', 'lots')
    await app.waitForTestId('error-tools.fs.maxWriteBytes')
    assert.equal(await app.text('error-tools.fs.maxWriteBytes'), '"lots" is not a size; write it like 512 KB or 2 MB.')
    await app.click('settings-tab-context')
    await app.typeInto('set-context.targetAfterCompression', '90 %')
    assert.equal(await app.text('error-context.targetAfterCompression'), 'Must be below "Compact above" (85 %).')
    assert.equal(await app.text('settings-wrong'), '2 fields to correct before saving')
    assert.equal(await app.exists('settings-tab-wrong-tools'), true, 'the Tools page is not marked')
    await app.press('set-context.targetAfterCompression', 'Enter') // submitting the form saves nothing either
    await sleep(300)
    assert.equal(readFileSync(join(home, 'settings.json'), 'utf8'), before, 'settings.json changed')
    await matrix('74-settings-invalid', async () => {
      await app.click('settings-tab-context')
    })
    await app.typeInto('set-context.targetAfterCompression', '40 %')
    await app.click('settings-tab-tools')
    await app.typeInto('set-tools.fs.maxWriteBytes', '4 MB')
    await app.waitFor(`!${sel('settings-wrong')}`, { what: 'the errors to go' })
    await savedAs('the corrected values', (f) => f.tools.fs.maxWriteBytes === 4194304)
    assert.equal(settingsFile().tools.fs.maxWriteBytes, 4194304)
    assert.equal(settingsFile().context.targetAfterCompression, 0.4)
  })

  await step('settings: Test connection lists the models the server serves; one is picked', async () => {
    await app.click('settings-tab-general')
    await app.typeInto('set-llm.model', '')
    await app.click('settings-test')
    await app.waitFor(`${sel('settings-test-result')}?.dataset.ok === 'false'`, { timeoutMs: 15000, what: 'the test result without a model' })
    assert.equal(await app.text('settings-test-result'), '✗ The server answers and serves 3 models: choose the model to use.')
    assert.deepEqual(await app.evaluate(`[...${sel('settings-model-pick')}.options].map((o) => o.value)`), ['', ...models])
    await app.evaluate(`(() => { const s = ${sel('settings-model-pick')}; s.value = 'qwen2.5-coder:7b'; s.dispatchEvent(new Event('change', { bubbles: true })); return true })()`)
    assert.equal(await value('set-llm.model'), 'qwen2.5-coder:7b')
    await app.click('settings-test')
    await app.waitFor(`${sel('settings-test-result')}?.dataset.ok === 'true'`, { timeoutMs: 15000, what: 'a successful test' })
    assert.match(await app.text('settings-test-result'), /Connected: qwen2\.5-coder:7b answered/)
    await matrix('75-settings-test-connection')
    await savedAs('the model picked', (f) => f.llm.model === 'qwen2.5-coder:7b')
    assert.equal(settingsFile().llm.model, 'qwen2.5-coder:7b')
  })

  await step('the System theme follows the desktop live; Light does not', async () => {
    // an XSETTINGS daemon on the window's display switches the GTK theme, as a desktop does
    const conf = join(tmp, 'xsettingsd.conf')
    writeFileSync(conf, 'Net/ThemeName "Adwaita"\n')
    let xs
    try {
      xs = start('xsettingsd', ['-c', conf], { stdio: 'ignore', env: { ...process.env, DISPLAY: app.display } })
    } catch (err) {
      throw new Error(`cannot start xsettingsd (${err.message}); install the xsettingsd package`)
    }
    await new Promise((resolve, reject) => {
      xs.once('error', (err) => reject(new Error(`cannot start xsettingsd (${err.message}); install the xsettingsd package`)))
      setTimeout(resolve, 800)
    })
    const setSystem = async (dark) => {
      writeFileSync(conf, `Net/ThemeName "${dark ? 'Adwaita-dark' : 'Adwaita'}"\n`)
      process.kill(xs.pid, 'SIGHUP')
    }
    try {
      await app.click('settings-tab-general')
      assert.equal(await app.evaluate(`${sel('set-theme-system')}.checked`), true)
      await app.waitFor(`document.documentElement.dataset.theme === 'light'`, { what: 'the light system theme' })
      await setSystem(true)
      await app.waitFor(`document.documentElement.dataset.theme === 'dark'`, { timeoutMs: 5000, what: 'the window to follow the dark desktop' })
      assert.equal(await app.evaluate(`window.matchMedia('(prefers-color-scheme: dark)').matches`), true)
      await app.screenshot('76-system-theme-dark')
      await app.click('settings-screen-close')
      await app.screenshot('77-system-theme-dark-workspace')
      await setSystem(false)
      await app.waitFor(`document.documentElement.dataset.theme === 'light'`, { timeoutMs: 5000, what: 'the window to follow the light desktop' })
      // Light stays light whatever the desktop does
      await app.click('open-settings')
      await app.click('set-theme-light')
      await savedAs('the light theme', (f) => f.theme === 'light')
      assert.equal(settingsFile().theme, 'light')
      await setSystem(true)
      await app.waitFor(`window.matchMedia('(prefers-color-scheme: dark)').matches`, { timeoutMs: 5000, what: 'the desktop to be dark' })
      await sleep(300)
      assert.equal(await app.evaluate('document.documentElement.dataset.theme'), 'light', 'a Light choice followed the desktop')
    } finally {
      await stop(xs)
    }
  })
}
