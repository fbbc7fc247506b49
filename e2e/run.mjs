// End-to-end runner: one Xvfb for the run, a fresh app and runtime home per
// spec (specs/*.e2e.mjs). Usage: node e2e/run.mjs [name-filter]
// Env: CREWAGENT_BIN (default build/bin/crewagent), E2E_KEEP=1 keeps temp dirs.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { launchApp } from './lib/app.mjs'
import { installExitHooks } from './lib/proc.mjs'
import { startXvfb } from './lib/xvfb.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const repo = resolve(here, '..')
const binary = resolve(repo, process.env.CREWAGENT_BIN ?? 'build/bin/crewagent')
const screenshotsDir = join(repo, 'build/screenshots')
const filter = process.argv[2] ?? ''
const specTimeoutMs = 120000

const red = (s) => (process.stdout.isTTY ? `\x1b[31m${s}\x1b[0m` : s)
const green = (s) => (process.stdout.isTTY ? `\x1b[32m${s}\x1b[0m` : s)

async function main() {
  if (!existsSync(binary)) {
    console.error(red(`e2e: ${binary} does not exist; build it first (bash scripts/run.sh or scripts/test.sh)`))
    return 1
  }
  installExitHooks()
  // The fake OpenAI server the chat specs talk to (cmd/fakellm); Go's build
  // cache makes this a no-op when nothing changed.
  const t0 = Date.now()
  execFileSync('go', ['build', '-o', join(repo, 'build/bin/fakellm'), './cmd/fakellm'], { cwd: repo, stdio: 'inherit' })
  console.log(`e2e: build/bin/fakellm ready (${Date.now() - t0} ms)`)
  const specs = readdirSync(join(here, 'specs'))
    .filter((f) => f.endsWith('.e2e.mjs') && f.includes(filter))
    .sort()
  if (specs.length === 0) {
    console.error(red(`e2e: no spec matches "${filter}"`))
    return 1
  }
  // Screenshots of this run only.
  mkdirSync(screenshotsDir, { recursive: true })
  for (const f of readdirSync(screenshotsDir)) if (f.endsWith('.png')) rmSync(join(screenshotsDir, f))
  // Room for the widest screenshots (1440x900); the window opens at 1280x800.
  const xvfb = await startXvfb({ width: 1440, height: 900 })
  let failed = 0
  try {
    for (const spec of specs) failed += (await runSpec(spec, xvfb.display)) ? 0 : 1
  } finally {
    await xvfb.stop()
  }
  console.log(failed ? red(`e2e: ${failed} of ${specs.length} spec(s) failed`) : green(`e2e: ${specs.length} spec(s) passed`))
  return failed ? 1 : 0
}

async function runSpec(file, display) {
  const name = file.replace(/\.e2e\.mjs$/, '')
  const tmp = mkdtempSync(join(tmpdir(), `crewagent-e2e-${name}-`))
  const t0 = Date.now()
  console.log(`e2e: ${name}`)
  const mod = await import(pathToFileURL(join(here, 'specs', file)))
  const home = join(tmp, 'home')
  mkdirSync(home, { recursive: true })
  let app
  let prepared = {}
  let ok = true
  try {
    // A spec may prepare the machine before the app starts (a fake LLM
    // server, files in the runtime home) and pass extra environment.
    if (mod.setup) prepared = (await mod.setup({ tmp, repo, home })) ?? {}
    app = await launchApp({
      binary,
      display,
      home,
      logFile: join(tmp, 'app.log'),
      screenshotsDir,
      env: prepared.env ?? {},
    })
    console.log(`  window visible after ${app.windowShownMs} ms`)
    const step = async (label, fn) => {
      const s0 = Date.now()
      try {
        await fn()
      } catch (err) {
        err.message = `step "${label}": ${err.message}`
        throw err
      }
      console.log(`  ${green('ok')}  ${label} (${Date.now() - s0} ms)`)
    }
    let timer
    // A spec may need longer than the default (export const timeoutMs).
    const limit = mod.timeoutMs ?? specTimeoutMs
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`spec took longer than ${limit} ms`)), limit)
    })
    try {
      await Promise.race([mod.default({ app, step, tmp, repo, home, screenshotsDir, prepared }), timeout])
    } finally {
      clearTimeout(timer)
    }
  } catch (err) {
    ok = false
    console.error(red(`  FAIL ${name}: ${err.message}`))
    if (app?.screenshot) {
      const shot = await app.screenshot(`failure-${name}`, { check: false }).catch(() => null)
      if (shot) console.error(`  screenshot: ${shot}`)
    }
    if (app) console.error(`  --- app log (${app.logFile}) ---\n${app.logTail()}`)
  } finally {
    await app?.close()
    await prepared.cleanup?.()
    if (ok && !process.env.E2E_KEEP) rmSync(tmp, { recursive: true, force: true })
    else console.log(`  kept ${tmp}`)
  }
  console.log(`  ${ok ? green('passed') : red('failed')} in ${Date.now() - t0} ms`)
  return ok
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(red(`e2e: ${err.stack ?? err}`))
    process.exit(1)
  },
)
