// Talks to the WebKitGTK remote inspector that the app exposes when started
// with WEBKIT_INSPECTOR_HTTP_SERVER=127.0.0.1:<port>. Page commands are wrapped
// in Target.sendMessageToTarget; replies come back in
// Target.dispatchMessageFromTarget.
import WebSocket from 'ws'

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** Polls the inspector's HTTP listing until it names a page websocket. */
export async function findPageSocket(port, timeoutMs = 15000) {
  const deadline = Date.now() + timeoutMs
  let last = ''
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/`)
      last = await res.text()
      const m = /\/socket\/\d+\/\d+\/WebPage/.exec(last)
      if (m) return `ws://127.0.0.1:${port}${m[0]}`
    } catch (err) {
      last = String(err)
    }
    await sleep(100)
  }
  throw new Error(`the WebKit inspector on port ${port} listed no page within ${timeoutMs} ms (last answer: ${last.slice(0, 300)})`)
}

export class Inspector {
  #ws
  #nextId = 1
  #pending = new Map()
  #targetId = null
  #targetWaiters = []
  #listeners = new Map()

  static async connect(url, timeoutMs = 15000) {
    const ins = new Inspector()
    await ins.#open(url, timeoutMs)
    return ins
  }

  async #open(url, timeoutMs) {
    this.#ws = new WebSocket(url)
    this.#ws.on('message', (data) => this.#onMessage(JSON.parse(String(data))))
    this.#ws.on('close', () => {
      for (const { reject } of this.#pending.values()) reject(new Error('inspector connection closed'))
      this.#pending.clear()
    })
    await new Promise((resolve, reject) => {
      this.#ws.once('open', resolve)
      this.#ws.once('error', reject)
    })
    await this.#waitForTarget(timeoutMs)
  }

  #onMessage(msg) {
    if (msg.method === 'Target.targetCreated') {
      const info = msg.params.targetInfo
      if (info.type === 'page' || !this.#targetId) {
        this.#targetId = info.targetId
        this.#targetWaiters.splice(0).forEach((w) => w())
      }
      return
    }
    if (msg.method === 'Target.targetDestroyed') {
      if (msg.params.targetId === this.#targetId) this.#targetId = null
      return
    }
    if (msg.method === 'Target.dispatchMessageFromTarget') {
      const inner = JSON.parse(msg.params.message)
      if (inner.id !== undefined) this.#settle(inner)
      else if (inner.method) for (const fn of this.#listeners.get(inner.method) ?? []) fn(inner.params)
      return
    }
    if (msg.id !== undefined && msg.error) this.#settle(msg)
  }

  #settle(msg) {
    const p = this.#pending.get(msg.id)
    if (!p) return
    this.#pending.delete(msg.id)
    if (msg.error) p.reject(new Error(`${p.method}: ${msg.error.message}`))
    else p.resolve(msg.result)
  }

  async #waitForTarget(timeoutMs) {
    if (this.#targetId) return
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no inspectable page appeared within ${timeoutMs} ms`)), timeoutMs)
      this.#targetWaiters.push(() => {
        clearTimeout(timer)
        resolve()
      })
    })
  }

  /** Sends one inspector command to the page and resolves with its result. */
  async send(method, params = {}, timeoutMs = 15000) {
    await this.#waitForTarget(timeoutMs)
    const id = this.#nextId++
    const message = JSON.stringify({ id, method, params })
    const reply = new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id)
        reject(new Error(`${method} got no reply within ${timeoutMs} ms`))
      }, timeoutMs)
      this.#pending.set(id, {
        method,
        resolve: (v) => (clearTimeout(timer), resolve(v)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      })
    })
    this.#ws.send(JSON.stringify({ id, method: 'Target.sendMessageToTarget', params: { targetId: this.#targetId, message } }))
    return reply
  }

  /** Calls fn with the params of each event `method` the page sends (such as
   * ScriptProfiler.trackingComplete); returns a function that stops it. */
  on(method, fn) {
    const fns = this.#listeners.get(method) ?? new Set()
    fns.add(fn)
    this.#listeners.set(method, fns)
    return () => fns.delete(fn)
  }

  /** Evaluates a JavaScript expression in the page and returns its JSON value. */
  async evaluate(expression) {
    const res = await this.send('Runtime.evaluate', { expression, returnByValue: true })
    if (res.wasThrown) throw new Error(`page threw: ${res.result?.description ?? JSON.stringify(res.result)}\n  in: ${expression}`)
    return res.result?.value
  }

  close() {
    this.#ws?.close()
  }
}
