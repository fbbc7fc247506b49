// The start screen, a bound Go method, the native folder dialog, opening and
// creating projects, the recent list (including a folder that disappeared),
// and error display.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { start, stop } from '../lib/proc.mjs'

export default async function smoke({ app, step, tmp, repo }) {
  const wails = JSON.parse(readFileSync(join(repo, 'wails.json'), 'utf8'))
  const workdir = join(tmp, 'work')
  const alpha = join(workdir, 'alpha')
  mkdirSync(alpha, { recursive: true })
  writeFileSync(join(alpha, 'README.md'), '# alpha\n')

  await step('start screen renders', async () => {
    await app.waitForTestId('start-screen')
    // Record CSP violations from here on; checked at the end.
    await app.evaluate(`(() => { window.__cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI)); return true })()`)
    assert.equal(await app.text('app-name'), 'CrewAgent')
    assert.equal(await app.evaluate('document.title'), 'CrewAgent')
    for (const id of ['new-project-button', 'open-project-button', 'open-path-input', 'open-path-submit']) {
      assert.ok(await app.exists(id), `${id} is missing`)
    }
    await app.waitForTestId('recent-empty')
    assert.ok(await app.evaluate(`!!document.querySelector('meta[http-equiv="Content-Security-Policy"]')`), 'no CSP meta tag')
    await app.screenshot('01-start')
  })

  await step('a bound Go method answers', async () => {
    assert.equal(await app.call('window.go.desktop.System.Version()'), wails.info.productVersion)
    await app.waitFor(`document.querySelector('[data-testid="app-version"]')?.textContent === 'v${wails.info.productVersion}'`, {
      what: 'the version on the start screen',
    })
    assert.equal(await app.call('window.go.desktop.System.HomeDir()'), app.home)
  })

  await step('a failing bound call rejects with a stable code', async () => {
    const missing = join(tmp, 'does-not-exist')
    // Bound methods reject with "CODE: message" (errors.go).
    await assert.rejects(app.call(`window.go.desktop.Projects.Open(${JSON.stringify(missing)})`), (err) => {
      assert.match(err.value?.message ?? '', /^E_PROJECT_NOT_FOUND: .*does-not-exist/, JSON.stringify(err.value))
      return true
    })
  })

  await step('the native folder dialog opens and can be cancelled', async () => {
    await app.click('open-project-button')
    const ids = await app.xdotool('search', '--sync', '--onlyvisible', '--name', '^Choose a folder$')
    await app.waitForTestId('busy')
    await app.screenshot('02-folder-dialog')
    await app.xdotool('windowfocus', '--sync', ids.split('\n')[0])
    await app.xdotool('key', 'Escape')
    await app.waitFor(`!document.querySelector('[data-testid="busy"]')`, { what: 'the start screen to leave the busy state' })
    assert.equal(await app.exists('error-banner'), false, 'cancelling the dialog showed an error')
    assert.equal(await app.exists('start-screen'), true)
  })

  await step('open a project by typed path', async () => {
    await app.typeInto('open-path-input', alpha)
    await app.click('open-path-submit')
    await app.waitForTestId('workspace-screen')
    assert.equal(await app.text('workspace-project-name'), 'alpha')
    assert.equal(await app.text('workspace-project-root'), alpha)
    const meta = JSON.parse(readFileSync(join(alpha, '.crewagent.json'), 'utf8'))
    assert.match(meta.projectId, /^[0-9a-f-]{36}$/)
    assert.equal(await app.text('workspace-project-id'), meta.projectId)
    assert.ok(existsSync(join(app.home, 'projects', meta.projectId)), 'project data folder not created')
    const current = await app.call('window.go.desktop.Projects.Current()')
    assert.equal(current.root, alpha)
    await app.screenshot('03-workspace')
  })

  await step('close the project; it is listed as recent', async () => {
    await app.click('workspace-close')
    await app.waitForTestId('start-screen')
    await app.waitFor(`document.querySelector('[data-testid="recent-item"]')?.dataset.root === ${JSON.stringify(alpha)}`, {
      what: 'alpha in the recent list',
    })
    assert.equal(await app.call('window.go.desktop.Projects.Current()'), null)
  })

  await step('create a new project', async () => {
    await app.click('new-project-button')
    await app.waitForTestId('new-project-form')
    await app.typeInto('new-project-name-input', 'beta')
    await app.typeInto('new-project-parent-input', workdir)
    await app.waitFor(`document.querySelector('[data-testid="new-project-preview"]')?.textContent.includes(${JSON.stringify(join(workdir, 'beta'))})`, {
      what: 'the new project preview',
    })
    await app.screenshot('04-new-project')
    await app.click('new-project-submit')
    await app.waitForTestId('workspace-screen')
    assert.equal(await app.text('workspace-project-name'), 'beta')
    assert.ok(existsSync(join(workdir, 'beta', '.crewagent.json')), 'beta/.crewagent.json not written')
    await app.click('workspace-close')
    await app.waitForTestId('start-screen')
  })

  await step('an invalid name is refused with a clear error', async () => {
    await app.click('new-project-button')
    await app.typeInto('new-project-name-input', 'bad/name')
    await app.typeInto('new-project-parent-input', workdir)
    await app.click('new-project-submit')
    await app.waitForTestId('error-banner')
    assert.equal(await app.evaluate(`document.querySelector('[data-testid="error-banner"]').dataset.code`), 'E_PROJECT_NAME_INVALID')
    assert.match(await app.text('error-message'), /invalid project name/)
    await app.screenshot('05-error')
    await app.click('error-dismiss')
    await app.click('new-project-cancel')
  })

  await step('a recent folder that disappeared is greyed and can be removed', async () => {
    rmSync(alpha, { recursive: true, force: true })
    // Reopen beta and close it again so the list is read afresh.
    await app.typeInto('open-path-input', join(workdir, 'beta'))
    await app.click('open-path-submit')
    await app.waitForTestId('workspace-screen')
    await app.click('workspace-close')
    const item = `[...document.querySelectorAll('[data-testid="recent-item"]')].find((el) => el.dataset.root === ${JSON.stringify(alpha)})`
    await app.waitFor(`${item}?.dataset.missing === 'true'`, { what: 'alpha marked missing' })
    assert.equal(await app.evaluate(`document.querySelectorAll('[data-testid="recent-item"]').length`), 2)
    await app.screenshot('06-recent-missing')
    await app.evaluate(`${item}.querySelector('[data-testid="recent-remove"]').click()`)
    await app.waitFor(`document.querySelectorAll('[data-testid="recent-item"]').length === 1`, { what: 'alpha removed from the list' })
    const recent = await app.call('window.go.desktop.Projects.Recent()')
    assert.deepEqual(
      recent.map((r) => r.name),
      ['beta'],
    )
  })

  await step('open a project chosen in the native folder dialog', async () => {
    const gamma = join(workdir, 'gamma')
    mkdirSync(gamma)
    await app.click('open-project-button')
    const ids = await app.xdotool('search', '--sync', '--onlyvisible', '--name', '^Choose a folder$')
    await app.xdotool('windowfocus', '--sync', ids.split('\n')[0])
    await app.xdotool('key', 'ctrl+l') // GTK file chooser: type a location
    await app.xdotool('type', '--delay', '10', `${gamma}/`)
    await app.xdotool('key', 'Return')
    await app.waitFor(`document.querySelector('[data-testid="workspace-project-name"]')?.textContent === 'gamma'`, {
      what: 'the workspace of the chosen folder',
    })
    assert.equal(await app.text('workspace-project-root'), gamma)
    assert.ok(existsSync(join(gamma, '.crewagent.json')), 'gamma/.crewagent.json not written')
  })

  await step('a project open in another process is refused with a clear message', async () => {
    const locked = join(workdir, 'locked')
    mkdirSync(locked)
    const projectId = '6f0c3a52-8e0b-4b43-9d52-3c7d1f0e9a11'
    writeFileSync(join(locked, '.crewagent.json'), JSON.stringify({ schemaVersion: '1', projectId, projectName: 'locked' }))
    const dataDir = join(app.home, 'projects', projectId)
    mkdirSync(dataDir, { recursive: true })
    // another process holds the writer lock of the project's data
    const holder = start('flock', [join(dataDir, '.lock'), 'sleep', '60'], { stdio: 'ignore' })
    try {
      await new Promise((r) => setTimeout(r, 200))
      await app.click('workspace-close')
      await app.waitForTestId('start-screen')
      await app.typeInto('open-path-input', locked)
      await app.click('open-path-submit')
      await app.waitForTestId('error-banner')
      assert.equal(await app.evaluate(`document.querySelector('[data-testid="error-banner"]').dataset.code`), 'E_PROJECT_LOCKED')
      assert.match(await app.text('error-message'), /already open in another CrewAgent/)
      assert.equal(await app.exists('workspace-screen'), false)
      await app.screenshot('07-project-locked')
    } finally {
      await stop(holder)
    }
    await app.click('error-dismiss')
    await app.click('open-path-submit')
    await app.waitForTestId('workspace-screen')
  })

  await step('no content security policy violations', async () => {
    assert.deepEqual(await app.evaluate('window.__cspViolations'), [])
  })
}
