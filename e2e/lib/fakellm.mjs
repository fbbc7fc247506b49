// Starts build/bin/fakellm (cmd/fakellm) with a rule script and returns its
// base URL; the script format is documented in backend/llm/fakellm.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { start, stop } from './proc.mjs'

// addr: where to listen (default: a free port); a server stopped and started
// again on its address looks to the app like one that went away and came back.
// models: the model ids GET /v1/models lists (default: fake-model).
export async function startFakeLLM({ binary, rules, dir, timeoutMs = 10000, addr = '127.0.0.1:0', models }) {
  const script = join(dir, 'fakellm-rules.json')
  writeFileSync(script, JSON.stringify(rules, null, 2))
  const args = ['-addr', addr, '-script', script, '-lenient', ...(models ? ['-models', models.join(',')] : [])]
  const child = start(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (d) => (stderr += d))
  const url = await new Promise((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`fakellm did not start within ${timeoutMs} ms\n${stderr}`)), timeoutMs)
    child.once('error', (err) => (clearTimeout(timer), reject(new Error(`cannot start ${binary}: ${err.message}`))))
    child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`fakellm exited with ${code}\n${stderr}`))))
    child.stdout.on('data', (d) => {
      out += d
      const m = /FAKE_LLM_URL=(\S+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve(m[1])
      }
    })
  })
  return {
    url,
    /** The requests the server received (decoded). */
    async requests() {
      const res = await fetch(new URL('../_fakellm/requests', url.endsWith('/') ? url : `${url}/`))
      return res.json()
    },
    stop: () => stop(child),
  }
}
