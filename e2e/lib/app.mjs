// Launches build/bin/crewagent in an X display with the WebKit inspector on,
// and drives the page: evaluate, waitFor, click, typeInto, screenshot.
import { execFile } from 'node:child_process'
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs'
import net from 'node:net'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { Inspector, findPageSocket } from './inspector.mjs'
import { internalHits, visibleTextScript } from './internalNames.mjs'
import { exited, start, stop } from './proc.mjs'

const run = promisify(execFile)
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

export async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address()
      srv.close(() => resolve(port))
    })
  })
}

const testidSelector = (id) => `[data-testid=${JSON.stringify(id)}]`

/** The window sizes every screen is shot at (app.screenshots). */
export const screenSizes = [
  { name: 'narrow', width: 900, height: 650 },
  { name: 'wide', width: 1440, height: 900 },
]

export async function launchApp({ binary, display, home, logFile, screenshotsDir, title = 'CrewAgent', env = {} }) {
  const port = await freePort()
  const log = createWriteStream(logFile)
  const child = start(binary, [], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      // The specs were written for writes that happen without asking; a spec
      // that shows the approval card sets CREWAGENT_APPROVE itself (env).
      CREWAGENT_APPROVE: 'full-auto',
      // The webview's own storage (the zoom and text size the window keeps)
      // per spec, beside its runtime home: nothing shared between runs.
      XDG_DATA_HOME: join(dirname(home), 'webview-data'),
      ...env,
      DISPLAY: display,
      CREWAGENT_HOME: home,
      WEBKIT_INSPECTOR_HTTP_SERVER: `127.0.0.1:${port}`,
      GDK_BACKEND: 'x11',
      NO_AT_BRIDGE: '1',
    },
  })
  child.stdout.pipe(log)
  child.stderr.pipe(log)
  const startedAt = Date.now()
  let inspector
  const app = {
    display,
    home,
    logFile,
    startedAt,
    windowShownMs: 0,
    async close() {
      inspector?.close()
      await stop(child)
      await new Promise((r) => log.end(r))
    },
    logTail(lines = 40) {
      try {
        return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')
      } catch {
        return ''
      }
    },
  }
  try {
    app.windowId = await waitForWindow(display, title, child, 20000)
    app.windowShownMs = Date.now() - startedAt
    inspector = await Inspector.connect(await findPageSocket(port))
  } catch (err) {
    await app.close()
    throw new Error(`${err.message}\n--- app log ---\n${app.logTail()}`)
  }

  Object.assign(app, {
    inspector,
    /** The JSON value of a page expression. */
    evaluate: (expr) => inspector.evaluate(expr),

    /** Awaits a page expression that may return a promise. Resolves with its
     * value or rejects with what it rejected with (Go errors arrive as
     * {code, message}). */
    async call(expr, timeoutMs = 15000) {
      const key = `k${Math.random().toString(36).slice(2)}`
      await inspector.evaluate(`(() => {
        const box = (window.__e2e ??= {});
        Promise.resolve().then(() => (${expr})).then(
          (value) => { box[${JSON.stringify(key)}] = { ok: true, value } },
          (error) => { box[${JSON.stringify(key)}] = { ok: false, error: error instanceof Error ? { message: error.message } : error } });
        return true })()`)
      const out = await app.waitFor(`window.__e2e?.[${JSON.stringify(key)}]`, { timeoutMs, what: `the result of ${expr}` })
      await inspector.evaluate(`delete window.__e2e[${JSON.stringify(key)}]`)
      if (!out.ok) {
        const err = new Error(`${expr} rejected: ${JSON.stringify(out.error)}`)
        err.value = out.error
        throw err
      }
      return out.value
    },

    /** Polls a page expression until it is truthy; returns its value. */
    async waitFor(expr, { timeoutMs = 10000, what = expr } = {}) {
      const deadline = Date.now() + timeoutMs
      let last
      for (;;) {
        if (exited(child)) throw new Error(`the app exited (code ${child.exitCode}, signal ${child.signalCode}) while waiting for ${what}`)
        try {
          last = await inspector.evaluate(expr)
          if (last) return last
        } catch (err) {
          last = err.message
        }
        if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last value: ${JSON.stringify(last)})`)
        await sleep(50)
      }
    },

    async waitForTestId(id, opts = {}) {
      return app.waitFor(`!!document.querySelector(${JSON.stringify(testidSelector(id))})`, { what: `[data-testid=${id}]`, ...opts })
    },

    /** The trimmed text of an element, or null when it is not there. */
    async text(id) {
      return app.evaluate(`document.querySelector(${JSON.stringify(testidSelector(id))})?.textContent?.trim() ?? null`)
    },

    async exists(id) {
      return app.evaluate(`!!document.querySelector(${JSON.stringify(testidSelector(id))})`)
    },

    /** Clicks an element once it is present and enabled. */
    async click(id, opts = {}) {
      const sel = JSON.stringify(testidSelector(id))
      await app.waitFor(`(() => { const el = document.querySelector(${sel}); return !!el && !el.disabled })()`, { what: `an enabled [data-testid=${id}]`, ...opts })
      await app.evaluate(`document.querySelector(${sel}).click()`)
    },

    /** Sets an input's value the way React notices (native setter + input event). */
    async typeInto(id, text, opts = {}) {
      const sel = JSON.stringify(testidSelector(id))
      await app.waitFor(`!!document.querySelector(${sel})`, { what: `[data-testid=${id}]`, ...opts })
      const ok = await app.evaluate(`(() => {
        const el = document.querySelector(${sel});
        const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
        Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, ${JSON.stringify(text)});
        el.dispatchEvent(new Event('input', { bubbles: true }));
        return el.value === ${JSON.stringify(text)} })()`)
      if (!ok) throw new Error(`could not type into [data-testid=${id}]`)
    },

    /** Dispatches a keydown on an element (or the focused one when id is
     * null), the way a key press reaches React's handlers. */
    async press(id, key, mods = {}) {
      const target = id ? `document.querySelector(${JSON.stringify(testidSelector(id))})` : 'document.activeElement || document.body'
      const ok = await app.evaluate(`(() => { const el = ${target}; if (!el) return false;
        el.dispatchEvent(new KeyboardEvent('keydown', { key: ${JSON.stringify(key)}, bubbles: true, cancelable: true,
          ctrlKey: ${!!mods.ctrl}, shiftKey: ${!!mods.shift}, metaKey: ${!!mods.meta}, altKey: ${!!mods.alt} })); return true })()`)
      if (!ok) throw new Error(`no element to press ${key} on (${id})`)
    },

    /** Resident memory of the app and every process it started (WebKit web
     * and network processes share its process group). */
    async memory() {
      const { stdout } = await run('ps', ['-o', 'pid=,rss=,comm=', '-g', String(child.pid)])
      const processes = stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const [pid, rss, ...comm] = line.trim().split(/\s+/)
          return { pid: Number(pid), rssKB: Number(rss), comm: comm.join(' ') }
        })
      return { totalKB: processes.reduce((n, p) => n + p.rssKB, 0), processes }
    },

    /** Runs xdotool on the app's display and returns its output. */
    async xdotool(...args) {
      const { stdout } = await run('xdotool', args, { env: { ...process.env, DISPLAY: display }, timeout: 15000 })
      return stdout.trim()
    },

    /** Shoots name at 900x650 and 1440x900, in the light and the dark
     * theme (<name>-narrow-light, …): prepare(size) puts the subject on
     * screen each time, settleMs more lets it settle. The window goes back
     * to 1280x800 and the theme to `theme` (a page expression) after. */
    async screenshots(name, prepare = async () => {}, { settleMs = 0, theme = "'light'" } = {}) {
      for (const size of screenSizes) {
        await app.resize(size.width, size.height)
        for (const t of ['light', 'dark']) {
          await app.evaluate(`document.documentElement.dataset.theme = ${JSON.stringify(t)}`)
          await prepare(size)
          if (settleMs) await sleep(settleMs)
          await app.screenshot(`${name}-${size.name}-${t}`)
        }
      }
      await app.resize(1280, 800)
      await app.evaluate(`document.documentElement.dataset.theme = ${theme}`)
    },

    /** Saves what the screen shows where the window is (with any native
     * dialog over it) to <screenshotsDir>/<name>.png, then fails when the
     * page shows an internal name, code or JSON outside Details
     * (internalNames.mjs); check: false for a failure's screenshot; screen:
     * true for the whole screen (a dialog larger than the window). */
    async screenshot(name, { check = true, screen = false } = {}) {
      mkdirSync(screenshotsDir, { recursive: true })
      const file = join(screenshotsDir, `${name}.png`)
      await sleep(150) // let the last frame paint
      const g = screen ? null : await app.geometry().catch(() => null)
      const crop = g ? ['-crop', `${g.width}x${g.height}+${g.x}+${g.y}`, '+repage'] : []
      await run('import', ['-window', 'root', ...crop, file], { env: { ...process.env, DISPLAY: display } })
      if (check) await app.checkNoInternalNames(name)
      return file
    },

    /** Fails when the page's visible text outside Details holds an error
     * code, a built-in tool's name or JSON. */
    async checkNoInternalNames(where = 'the page') {
      const text = await app.evaluate(visibleTextScript)
      const hits = internalHits(String(text ?? ''))
      if (hits.length) {
        throw new Error(`${where} shows ${hits.map((h) => `${h.what} "${h.match}" in "${h.line}"`).join('; ')} outside Details`)
      }
    },

    /** The window's position and size on the screen. */
    async geometry() {
      const out = await app.xdotool('getwindowgeometry', '--shell', app.windowId)
      const v = Object.fromEntries(out.split('\n').map((l) => l.split('=')))
      return { x: Number(v.X), y: Number(v.Y), width: Number(v.WIDTH), height: Number(v.HEIGHT) }
    },

    /** Resizes the window and waits until the page has the new size. */
    async resize(width, height) {
      await app.xdotool('windowmove', app.windowId, '0', '0')
      await app.xdotool('windowsize', app.windowId, String(width), String(height))
      await app.waitFor(`window.innerWidth === ${width} && window.innerHeight === ${height}`, { what: `a ${width}x${height} window` })
      await sleep(100)
    },
  })
  return app
}

async function waitForWindow(display, title, child, timeoutMs) {
  const pattern = `^${title}$`
  const deadline = Date.now() + timeoutMs
  // xdotool fails with BadWindow when a window it lists goes away before it
  // reads it (WebKit's short-lived windows while the app starts): try again.
  for (;;) {
    const left = deadline - Date.now()
    if (left <= 0) throw new Error(`no visible window titled "${title}" within ${timeoutMs} ms`)
    const attempt = run('xdotool', ['search', '--sync', '--onlyvisible', '--name', pattern], {
      env: { ...process.env, DISPLAY: display },
      timeout: left,
    })
    const died = new Promise((_, reject) => {
      const check = setInterval(() => {
        if (exited(child)) {
          clearInterval(check)
          reject(new Error(`the app exited (code ${child.exitCode}, signal ${child.signalCode}) before its window appeared`))
        }
      }, 100)
      attempt.finally(() => clearInterval(check)).catch(() => {})
    })
    try {
      const { stdout } = await Promise.race([attempt, died])
      return stdout.trim().split('\n')[0]
    } catch (err) {
      if (err.killed) throw new Error(`no visible window titled "${title}" within ${timeoutMs} ms`)
      if (exited(child) || !/BadWindow|X Error/.test(`${err.message}${err.stderr ?? ''}`)) throw err
      await sleep(100)
    }
  }
}
