// The conversation workspace against the fake OpenAI server: a streamed
// markdown answer, tool calls as cards (with a full output kept on disk), the
// context meter through a compression, an LLM failure and Continue, forks
// from a message and from a checkpoint, search, the context inspector, a
// reply cut off by a crash, edits and regenerations as versions switched in
// place, copy buttons, who answered, an unreachable server said in words,
// export (native save dialog and the command line), settings (Test
// Connection, theme), and deletion with its files. The new screens are shot
// at 900x650 and 1440x900 in both themes.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { promisify } from 'node:util'
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startFakeLLM } from '../lib/fakellm.mjs'

const markdownAnswer = [
  '## Plan',
  '',
  'Here is **bold** text, a [link](https://example.com/docs) and `inline code`.',
  '',
  '- first item',
  '- second item',
  '',
  '```go',
  'func main() {',
  '\tfmt.Println("hello")',
  '}',
  '```',
  '',
  '<script>window.__xss = 1</script> <img src=x onerror="window.__xss = 2">',
].join('\n')

// Many steps and a matrix of screenshots: more than the default limit.
export const timeoutMs = 420000

export async function setup({ tmp, repo, home }) {
  const rules = [
    { match: 'capital of france', times: 1, response: { text: 'Paris.' } },
    { match: 'capital of france', response: { text: 'Paris, on the Seine.' } },
    { match: 'capital of italy', response: { text: 'Rome.' } },
    { match: 'bridges', response: { text: 'Thirty-seven bridges cross the Seine in Paris.' } },
    { match: 'code please', response: { text: 'Like this:\n\n```go\nfunc main() {\n\tfmt.Println("hello")\n}\n```\n\nThat is all.' } },
    { match: 'show markdown', response: { text: markdownAnswer, chunks: 40, chunk_delay_ms: 60 } },
    { match: 'list the files', response: { tool_calls: [{ name: 'fs.list', arguments: '{"path":"@project"}', arg_chunks: 2 }] } },
    { match: 'read the big file', response: { tool_calls: [{ name: 'fs.read', arguments: '{"path":"@project/big.txt"}' }] } },
    { match: '*', on_tool_result: true, response: { text: 'I ran the tool; its result is in the card above.' } },
    { match: 'long', response: { text: 'A long line of text. ', repeat: 60, chunks: 6 } },
    { match: 'break', times: 1, response: { text: 'This answer will be cut off in the middle', chunks: 6, cut: true, cut_after: 4 } },
    { match: 'cut short', times: 1, response: { text: 'This answer stops at the output lim', finish_reason: 'length' } },
    { match: 'continue', response: { text: 'Continuing where I stopped: all done.' } },
    { match: 'slow', response: { text: 'Slow words arriving one by one. ', repeat: 60, chunks: 120, chunk_delay_ms: 40 } },
    { match: '*', response: { text: 'You said: ', echo: true } },
  ]
  const llm = await startFakeLLM({ binary: join(repo, 'build/bin/fakellm'), rules, dir: tmp })
  // The server can be stopped and started again on its address (an
  // unreachable server, then one that is back).
  const server = {
    current: llm,
    url: llm.url,
    async stop() {
      await server.current.stop()
    },
    async restart() {
      server.current = await startFakeLLM({ binary: join(repo, 'build/bin/fakellm'), rules, dir: tmp, addr: new URL(llm.url).host })
    },
    requests: () => server.current.requests(),
  }
  // A small window so that a few long answers fill it and compression runs.
  writeFileSync(
    join(home, 'settings.json'),
    JSON.stringify({ context: { reserveForResponse: 400, triggerThreshold: 0.8, targetAfterCompression: 0.5 }, llm: { maxRetries: 0 } }, null, 2),
    { mode: 0o600 },
  )
  return {
    llm: server,
    env: { CREWAGENT_LLM_BASE_URL: llm.url, CREWAGENT_LLM_MODEL: 'gpt-4o-mini', CREWAGENT_TOKEN_BUDGET: '6000' },
    cleanup: () => server.stop(),
  }
}

const sel = (id) => `document.querySelector('[data-testid="${id}"]')`
const all = (id) => `[...document.querySelectorAll('[data-testid="${id}"]')]`
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

export default async function chat({ app, step, tmp, home, repo, prepared }) {
  const llm = prepared.llm
  const workdir = join(tmp, 'work')
  mkdirSync(workdir, { recursive: true })
  let projectRoot, dataDir, firstConv

  const send = async (text) => {
    await app.typeInto('composer-input', text)
    await app.press('composer-input', 'Enter')
  }
  const waitIdle = (what) => app.waitFor(`${sel('chat-view')}?.dataset.streaming === 'false'`, { timeoutMs: 20000, what: what ?? 'the reply to end' })
  const assistantCount = () => app.evaluate(`${all('msg-assistant')}.length`)

  await step('create a project and see the empty workspace', async () => {
    await app.waitForTestId('start-screen')
    await app.evaluate(`(() => { window.__cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI)); return true })()`)
    await app.click('new-project-button')
    await app.typeInto('new-project-name-input', 'demo')
    await app.typeInto('new-project-parent-input', workdir)
    await app.click('new-project-submit')
    await app.waitForTestId('workspace-screen')
    await app.waitForTestId('conv-empty')
    projectRoot = join(workdir, 'demo')
    const meta = JSON.parse(readFileSync(join(projectRoot, '.crewagent.json'), 'utf8'))
    dataDir = join(home, 'projects', meta.projectId)
    writeFileSync(join(projectRoot, 'notes.md'), '# notes\n')
    writeFileSync(join(projectRoot, 'big.txt'), Array.from({ length: 1500 }, (_, i) => `line ${i}: ${'x'.repeat(40)}`).join('\n'))
    await app.screenshot('10-workspace-empty')
  })

  await step('a new conversation (Ctrl+N) shows the meter before the first message', async () => {
    // a real key press on the window (X11), not a synthetic event
    const win = (await app.xdotool('search', '--onlyvisible', '--name', '^CrewAgent$')).split('\n')[0]
    await app.xdotool('windowfocus', '--sync', win)
    await app.xdotool('key', '--window', win, 'ctrl+n')
    await app.waitForTestId('chat-view')
    await app.waitForTestId('chat-empty')
    await app.waitFor(`${sel('context-meter')}?.dataset.status === 'normal'`, { what: 'the meter from the context preview' })
    firstConv = await app.evaluate(`${sel('chat-view')}.dataset.conversation`)
    assert.ok(existsSync(join(dataDir, 'conversations', firstConv)), 'conversation folder not created')
    assert.equal(await app.evaluate(`${all('conv-item')}.length`), 1)
  })

  await step('a streamed markdown answer, sanitised', async () => {
    const before = Number(await app.evaluate(`${sel('context-meter')}.dataset.used`))
    // typed and sent with real keys: Shift+Enter adds a line, Enter sends
    await app.evaluate(`${sel('composer-input')}.focus()`)
    await app.xdotool('type', '--delay', '5', 'show markdown')
    await app.xdotool('key', 'shift+Return')
    await app.xdotool('type', '--delay', '5', 'please')
    await app.waitFor(`${sel('composer-input')}.value === 'show markdown\\nplease'`, { what: 'a two-line message in the input' })
    await app.xdotool('key', 'Return')
    await app.waitForTestId('msg-live', { timeoutMs: 10000 })
    await app.waitFor(`${sel('msg-live')}?.textContent.length > 20`, { what: 'streamed text' })
    assert.equal(await app.exists('composer-stop'), true, 'no Stop button while streaming')
    await app.screenshot('11-streaming')
    await waitIdle()
    await app.waitFor(`${all('msg-assistant')}.some((el) => el.querySelector('pre code.hljs .hljs-keyword'))`, { what: 'a highlighted code block' })
    const md = await app.evaluate(`(() => { const el = ${all('msg-assistant')}.pop(); return {
      h2: !!el.querySelector('h2'), link: el.querySelector('a')?.getAttribute('href'), li: el.querySelectorAll('li').length,
      script: !!el.querySelector('script'), img: !!el.querySelector('img'), text: el.textContent } })()`)
    assert.deepEqual([md.h2, md.link, md.li, md.script, md.img], [true, 'https://example.com/docs', 2, false, false])
    assert.match(md.text, /<script>window.__xss = 1<\/script>/, 'raw HTML must show as text')
    assert.equal(await app.evaluate('window.__xss ?? null'), null)
    assert.equal(await app.evaluate(`${all('msg-user')}.length`), 1)
    await app.waitFor(`Number(${sel('context-meter')}.dataset.used) > ${before}`, { what: 'the meter to move' })
    // the title comes from the first message
    await app.waitFor(`${sel('chat-title')}?.textContent.includes('show markdown')`, { what: 'the derived title' })
    assert.equal(await app.evaluate(`${sel('composer-input')}.value`), '', 'the input was not cleared after sending')
    await app.screenshot('12-markdown-answer')
  })

  await step('a tool call renders as a card, not a bubble', async () => {
    const bubbles = await assistantCount()
    await send('please list the files')
    await waitIdle()
    await app.waitFor(`${all('tool-card')}.some((c) => c.dataset.tool === 'fs.list' && c.dataset.status === 'ok')`, { what: 'an ok fs.list card' })
    await app.waitFor(`${all('msg-assistant')}.length === ${bubbles + 1}`, { what: 'one answer bubble after the tool' })
    assert.match(await app.evaluate(`${all('msg-assistant')}.pop().textContent`), /I ran the tool/)
    // no bubble holds the raw tool result
    assert.equal(await app.evaluate(`${all('msg-assistant')}.some((el) => el.textContent.includes('"entries"') || el.textContent.includes('notes.md'))`), false)
    await app.evaluate(`${all('tool-card')}.find((c) => c.dataset.tool === 'fs.list').querySelector('[data-testid="tool-toggle"]').click()`)
    await app.waitFor(`${all('tool-body')}.some((b) => b.textContent.includes('notes.md'))`, { what: 'the expanded result' })
    await app.screenshot('13-tool-card')
  })

  await step('the context meter goes up and a compression happens', async () => {
    // Record every usage event and every status the meter shows.
    await app.evaluate(`(() => { window.__usage = []; window.__meterStatuses = [];
      window.runtime.EventsOn('context:usage', (u) => window.__usage.push(u));
      new MutationObserver(() => { const s = ${sel('context-meter')}?.dataset.status; if (s && window.__meterStatuses.at(-1) !== s) window.__meterStatuses.push(s) })
        .observe(document.body, { subtree: true, attributes: true, attributeFilter: ['data-status'], childList: true });
      return true })()`)
    let compacted = false
    let warned = false
    for (let i = 0; i < 24 && !compacted; i++) {
      await send(`long answer number ${i + 1}`)
      await waitIdle()
      // the log says so (the card may be above the rows the list draws)
      compacted = readFileSync(join(dataDir, 'conversations', firstConv, 'messages.jsonl'), 'utf8').includes('"event":"compaction"')
      if (!warned && !compacted && (await app.evaluate(`${sel('context-meter')}.dataset.status`)) === 'warning') {
        warned = true
        await app.screenshot('14-meter-warning')
      }
    }
    assert.ok(compacted, 'no compaction marker after 24 long answers')
    const usage = await app.evaluate('window.__usage')
    const statuses = await app.evaluate('window.__meterStatuses')
    const percents = usage.map((u) => u.usagePercent)
    const sawCompressing = usage.some((u) => u.status === 'compressing')
    const dropped = percents.some((p, i) => i > 0 && p < percents[i - 1] - 10)
    console.log(`    usage events: ${usage.map((u) => `${u.status}:${u.usagePercent.toFixed(0)}%`).join(' ')}`)
    console.log(`    meter statuses: ${statuses.join(' → ')}`)
    assert.ok(sawCompressing || dropped, 'neither a compressing status nor a usage drop')
    assert.ok(statuses.includes('warning') || statuses.includes('critical'), `the meter never left normal: ${statuses}`)
    const log = readFileSync(join(dataDir, 'conversations', firstConv, 'messages.jsonl'), 'utf8')
    assert.match(log, /"event":"compaction"/)
    assert.match(log, /"compacted":true/)
    // scroll up to the compaction's card (the list draws the rows near the view)
    for (let k = 0; k < 60 && !(await app.exists('event-compaction')); k++) {
      await app.evaluate(`${sel('message-list')}.scrollTop -= 300`)
      await sleep(50)
    }
    await app.evaluate(`${sel('event-compaction')}.scrollIntoView({ block: 'center' })`)
    await app.screenshot('15-compressed')
    await app.evaluate(`${sel('message-list')}.scrollTop = ${sel('message-list')}.scrollHeight`)
  })

  await step('the context inspector shows the next request', async () => {
    await app.click('context-meter')
    await app.waitForTestId('inspector-body', { timeoutMs: 10000 })
    const rows = await app.evaluate(`${all('inspector-row')}.length`)
    assert.ok(rows >= 2, `only ${rows} request rows`)
    assert.match(await app.text('inspector-used'), /\/ 5,?600 tokens/)
    assert.match(await app.evaluate(`${sel('inspector-messages')}.textContent`), /system/)
    await app.screenshot('16-context-inspector')
    // the project's instructions: none yet; written here, they are on disk
    // and in the next request, word for word
    await app.waitForTestId('instructions-none', { timeoutMs: 10000 })
    await app.click('instructions-edit')
    await app.typeInto('instructions-editor', '# Project rules\n\n- Answer in English.\n- The staging host is build-7.internal.\n')
    await app.click('instructions-save')
    await app.waitForTestId('instructions-saved', { timeoutMs: 10000 })
    assert.equal(readFileSync(join(projectRoot, 'AGENTS.md'), 'utf8'), '# Project rules\n\n- Answer in English.\n- The staging host is build-7.internal.\n')
    await app.waitFor(`${sel('inspector-messages')}.textContent.includes('PROJECT_INSTRUCTIONS')`, { what: 'the instructions in the request', timeoutMs: 10000 })
    await app.evaluate(`${sel('inspector-instructions')}.scrollIntoView({ block: 'start' })`)
    await app.screenshot('16-project-instructions')
    await app.click('context-inspector-close')
  })

  await step('an LLM failure shows as an error message; Continue resumes', async () => {
    await send('break the stream now')
    await waitIdle()
    await app.waitForTestId('msg-error')
    assert.equal(await app.evaluate(`${sel('msg-error')}.dataset.code`), 'LLM_STREAM_INCOMPLETE')
    assert.match(await app.text('msg-error'), /This answer/)
    await app.screenshot('17-llm-error')
    await app.click('error-continue')
    await waitIdle()
    await app.waitFor(`${all('msg-assistant')}.pop()?.textContent.includes('Continuing where I stopped')`, { what: 'the continued answer' })
    assert.equal(await app.exists('error-continue'), false, 'Continue still offered after resuming')
  })

  await step('an answer cut short by the output limit says so; Continue resumes it', async () => {
    await send('cut short please')
    await waitIdle()
    await app.waitForTestId('msg-incomplete')
    assert.equal(await app.evaluate(`${sel('msg-incomplete')}.dataset.reason`), 'length')
    assert.match(await app.text('msg-incomplete'), /output limit/)
    await app.evaluate(`${sel('msg-incomplete')}.scrollIntoView({ block: 'center' })`)
    await app.screenshot('17b-incomplete-answer')
    await app.click('incomplete-continue')
    await waitIdle()
    await app.waitFor(`${all('msg-assistant')}.pop()?.textContent.includes('Continuing where I stopped')`, { what: 'the continued answer' })
    assert.equal(await app.exists('incomplete-continue'), false, 'Continue still offered after resuming')
  })

  await step('auto-scroll pauses when scrolled up; Esc stops the reply', async () => {
    await send('a slow answer please')
    await app.waitFor(`${sel('msg-live')}?.textContent.length > 40`, { what: 'the slow answer to start' })
    // the user scrolls up to read: the list must stay there
    await app.evaluate(`(() => { const l = ${sel('message-list')}; l.dispatchEvent(new WheelEvent('wheel', { deltaY: -400, bubbles: true })); l.scrollTop = 200; l.dispatchEvent(new Event('scroll')); return true })()`)
    await app.waitForTestId('jump-latest')
    await new Promise((r) => setTimeout(r, 500))
    const top = await app.evaluate(`${sel('message-list')}.scrollTop`)
    assert.ok(top < 400, `the list scrolled back down to ${top} while streaming`)
    await app.screenshot('18-scrolled-up-while-streaming')
    await app.click('jump-latest')
    await app.waitFor(`(() => { const l = ${sel('message-list')}; return l.scrollHeight - l.scrollTop - l.clientHeight < 60 })()`, { what: 'the list back at the bottom' })
    await app.xdotool('key', 'Escape')
    await waitIdle('the stopped reply to end')
    // a stop is a quiet note with what arrived, not a red error
    await app.waitForTestId('msg-stopped', { what: 'the stopped reply' })
    const stopped = await app.evaluate(`(() => { const el = ${all('msg-stopped')}.pop(); return {
      text: el.textContent, alert: !!el.querySelector('[role="alert"]'), cont: !!el.querySelector('[data-testid="stopped-continue"]') } })()`)
    assert.match(stopped.text, /Slow words/)
    assert.match(stopped.text, /Stopped/)
    assert.doesNotMatch(stopped.text, /LLM_ABORTED/)
    assert.equal(stopped.alert, false, 'a stop shows as an alert')
    assert.equal(stopped.cont, true, 'no Continue after a stop with text')
  })

  await step('fork from a message and from a checkpoint', async () => {
    await app.click('conv-menu-toggle')
    await app.click('menu-checkpoints')
    await app.typeInto('cp-name-input', 'after error')
    await app.click('cp-create')
    await app.waitFor(`${all('cp-item')}.length === 1`, { what: 'the checkpoint in the list' })
    await app.screenshot('19-checkpoints')
    await app.click('cp-fork')
    await app.waitFor(`${sel('chat-view')}?.dataset.conversation !== ${JSON.stringify(firstConv)}`, { what: 'the checkpoint fork to open' })
    await app.waitFor(`${sel('chat-title')}?.textContent.includes('(fork)')`, { what: 'the fork title' })
    // the fork starts with its origin marker (scroll up to it)
    await app.waitFor(`(() => { const l = ${sel('message-list')}; if (!l) return false; l.scrollTop = 0; return !!${sel('event-fork_origin')} })()`, { what: 'the fork origin marker' })
    // back to the first conversation, fork at its newest user message
    await app.evaluate(`${all('conv-item')}.find((el) => el.dataset.id === ${JSON.stringify(firstConv)}).querySelector('[data-testid="conv-open"]').click()`)
    await app.waitFor(`${sel('chat-view')}?.dataset.conversation === ${JSON.stringify(firstConv)} && ${all('msg-user')}.length > 0`, { what: 'the first conversation' })
    const at = await app.evaluate(`${all('msg-user')}.pop().dataset.id`)
    await app.evaluate(`${all('msg-user')}.pop().querySelector('[data-testid="msg-fork"]').click()`)
    await app.waitFor(`${sel('chat-view')}?.dataset.conversation !== ${JSON.stringify(firstConv)}`, { what: 'the message fork to open' })
    await app.waitFor(`${all('msg-user')}.pop()?.dataset.id === ${JSON.stringify(at)}`, { what: 'the fork to end at the chosen message' })
    assert.equal(await app.evaluate(`${all('conv-item')}.length`), 3)
    // cut on purpose: no crash notice, an offer to answer instead; a title of its own
    await app.waitForTestId('msg-awaiting', { what: 'the fork to offer an answer' })
    assert.equal(await app.exists('msg-unfinished'), false, 'a fork at a message ends with the crash notice')
    const titles = await app.evaluate(`${all('conv-title')}.map((el) => el.textContent)`)
    assert.equal(new Set(titles).size, titles.length, `forks share a title: ${titles}`)
    assert.ok(titles.some((t) => /\(fork 2\)$/.test(t)), `no "(fork 2)" among ${titles}`)
    await app.screenshot('20-fork')
  })

  await step('search finds titles and message text', async () => {
    await app.typeInto('conv-search', 'continuing where')
    await app.waitFor(`${all('conv-hit')}.length >= 1`, { what: 'search hits' })
    assert.match(await app.evaluate(`${all('conv-hit-snippet')}[0].textContent`), /Continuing where I stopped/i)
    await app.screenshot('21-search')
    await app.typeInto('conv-search', 'no such words anywhere')
    await app.waitForTestId('conv-search-empty')
    await app.typeInto('conv-search', '')
    await app.waitFor(`${all('conv-item')}.length === 3`, { what: 'the full list back' })
  })

  await step('a large tool output opens in full; deleting removes every file', async () => {
    await app.click('conv-new')
    await app.waitForTestId('chat-empty')
    const conv = await app.evaluate(`${sel('chat-view')}.dataset.conversation`)
    await send('read the big file')
    await waitIdle()
    await app.waitFor(`${all('tool-card')}.some((c) => c.dataset.tool === 'fs.read' && c.dataset.status === 'ok')`, { what: 'the fs.read card' })
    const results = join(dataDir, 'logs', 'tool-results', conv)
    // the exact record and its readable copy, which fs.read pages through
    const files = existsSync(results) ? readdirSync(results).sort() : []
    assert.ok(files.length === 2 && files[0].endsWith('.json') && files[1].endsWith('.txt'), `the large output was not written to logs/tool-results: ${files}`)
    await app.click('tool-full-output')
    await app.waitFor(`${sel('tool-output-text')}?.textContent.includes('line 1499')`, { what: 'the full output' })
    await app.screenshot('22-full-output')
    await app.click('tool-output-dialog-close')
    // delete it from the sidebar
    await app.evaluate(`${all('conv-item')}.find((el) => el.dataset.id === ${JSON.stringify(conv)}).querySelector('[data-testid="conv-delete"]').click()`)
    await app.waitForTestId('delete-dialog')
    assert.match(await app.text('delete-dialog'), /chat history/)
    assert.match(await app.text('delete-dialog'), /tool output/)
    assert.match(await app.text('delete-dialog'), /workflow run/)
    await app.screenshot('23-delete-confirm')
    await app.click('delete-confirm')
    await app.waitFor(`!${all('conv-item')}.some((el) => el.dataset.id === ${JSON.stringify(conv)})`, { what: 'the conversation to leave the list' })
    assert.equal(existsSync(join(dataDir, 'conversations', conv)), false, 'conversation folder still there')
    assert.equal(existsSync(results), false, 'tool results still there')
    const index = JSON.parse(readFileSync(join(dataDir, 'conversations', 'index.json'), 'utf8'))
    assert.equal(index.some((r) => r.id === conv), false, 'index record still there')
    assert.equal(await app.exists('chat-view'), false)
  })

  await step('the list follows changes made on disk by others', async () => {
    // another writer removes a conversation folder
    const { rmSync } = await import('node:fs')
    const victim = await app.evaluate(`${all('conv-item')}.find((el) => el.dataset.id !== ${JSON.stringify(firstConv)}).dataset.id`)
    rmSync(join(dataDir, 'conversations', victim), { recursive: true, force: true })
    await app.waitFor(`!${all('conv-item')}.some((el) => el.dataset.id === ${JSON.stringify(victim)})`, { timeoutMs: 5000, what: 'the removed conversation to disappear' })
  })

  await step('a reply cut off by a crash says so; Retry answers it without repeating it', async () => {
    // What a crash mid-reply leaves on disk: the user's message, nothing after it.
    const id = randomUUID()
    const dir = join(dataDir, 'conversations', id)
    mkdirSync(dir, { recursive: true })
    const question = { type: 'msg', id: 'crash-u1', createdAt: new Date().toISOString(), role: 'user', content: 'a question asked just before the app was killed', mode: 'chat', partType: 'content', tokens: 12 }
    writeFileSync(join(dir, 'messages.jsonl'), `${JSON.stringify(question)}\n`)
    const item = `document.querySelector('[data-testid="conv-item"][data-id="${id}"]')`
    await app.waitFor(`!!${item}`, { timeoutMs: 5000, what: 'the conversation written on disk' })
    await app.evaluate(`${item}.querySelector('[data-testid="conv-open"]').click(), true`)
    await app.waitForTestId('msg-unfinished')
    assert.match(await app.text('msg-unfinished'), /did not finish/)
    await app.screenshot('26-unfinished-reply')
    await app.click('unfinished-retry')
    await waitIdle('the retried reply')
    await app.waitFor(`${all('msg-assistant')}.pop()?.textContent.includes('You said: a question asked just before')`, { what: 'the answer to the retried message' })
    assert.equal(await app.exists('msg-unfinished'), false, 'the notice stayed after the reply')
    assert.equal(await app.evaluate(`${all('msg-user')}.length`), 1, 'the message was sent again')
    const log = readFileSync(join(dir, 'messages.jsonl'), 'utf8')
    assert.equal(log.match(/"role":"user"/g).length, 1, 'the log holds the message twice')
  })

  // ---- versions, copy, who answered, failures in words, export ----

  const matrix = (name, prepare) => app.screenshots(name, prepare)
  /** Moves the real pointer over an element (hover styles, hover handlers). */
  const hover = async (expr) => {
    const r = await app.evaluate(`(() => { const el = ${expr}; el.scrollIntoView({ block: 'center' }); const b = el.getBoundingClientRect(); return { x: Math.round(b.left + b.width / 2), y: Math.round(b.top + Math.min(b.height / 2, 20)) } })()`)
    await new Promise((res) => setTimeout(res, 120)) // the list settles after scrolling
    const r2 = await app.evaluate(`(() => { const b = (${expr}).getBoundingClientRect(); return { x: Math.round(b.left + b.width / 2), y: Math.round(b.top + Math.min(b.height / 2, 20)) } })()`)
    const g = await app.geometry()
    await app.xdotool('mousemove', String(g.x + (r2?.x ?? r.x)), String(g.y + (r2?.y ?? r.y)))
    await new Promise((res) => setTimeout(res, 150))
  }
  /** Clicks an element with the real pointer (a trusted click, as the
   * clipboard wants). */
  const realClick = async (expr) => {
    await hover(expr)
    await app.xdotool('click', '1')
  }
  const lastOf = (id) => `${all(id)}.pop()`
  const clipboard = () => app.call('window.runtime.ClipboardGetText()')
  let showcase

  await step('regenerate and edit make versions, switched in place; the log keeps them all', async () => {
    await app.click('conv-new')
    await app.waitForTestId('chat-empty')
    showcase = await app.evaluate(`${sel('chat-view')}.dataset.conversation`)
    await send('What is the capital of France?')
    await waitIdle()
    await app.waitFor(`${lastOf('msg-assistant')}?.textContent.includes('Paris.')`, { what: 'the first answer' })
    // regenerate: a second version of the answer
    await hover(lastOf('msg-assistant'))
    await app.evaluate(`${lastOf('msg-assistant')}.querySelector('[data-testid="msg-regenerate"]').click()`)
    await waitIdle('the new answer')
    await app.waitFor(`${lastOf('msg-assistant')}?.textContent.includes('Paris, on the Seine.')`, { what: 'the regenerated answer' })
    await app.waitFor(`${lastOf('msg-assistant')}?.querySelector('[data-testid="branch-switcher"]')?.textContent === '2/2'`, { what: 'the answer switcher at 2/2' })
    assert.equal(await app.evaluate(`${all('msg-assistant')}.length`), 1, 'both answers shown at once')
    // back to the first version, in place, and forward again
    await app.evaluate(`${lastOf('msg-assistant')}.querySelector('[data-testid="branch-prev"]').click()`)
    await app.waitFor(`${lastOf('msg-assistant')}?.textContent.startsWith('Paris.') && ${lastOf('msg-assistant')}.querySelector('[data-testid="branch-switcher"]')?.dataset.index === '1'`, { what: 'version 1 of the answer' })
    await app.evaluate(`${lastOf('msg-assistant')}.querySelector('[data-testid="branch-next"]').click()`)
    await app.waitFor(`${lastOf('msg-assistant')}?.textContent.includes('on the Seine')`, { what: 'version 2 again' })
    // edit the question: a new version of the conversation from there
    await hover(lastOf('msg-user'))
    await app.evaluate(`${lastOf('msg-user')}.querySelector('[data-testid="msg-edit"]').click()`)
    await app.waitForTestId('edit-input')
    await app.typeInto('edit-input', 'And the capital of Italy?')
    await app.click('edit-send')
    await waitIdle('the answer to the edit')
    await app.waitFor(`${lastOf('msg-assistant')}?.textContent.includes('Rome.')`, { what: 'the answer to the edited message' })
    await app.waitFor(`${lastOf('msg-user')}?.querySelector('[data-testid="branch-switcher"]')?.dataset.index === '2'`, { what: 'the message switcher at 2/2' })
    assert.match(await app.evaluate(`${lastOf('msg-user')}.textContent`), /capital of Italy\?.*\(edited\)/)
    // the original question comes back with the answer it had
    await app.evaluate(`${lastOf('msg-user')}.querySelector('[data-testid="branch-prev"]').click()`)
    await app.waitFor(`${lastOf('msg-user')}?.textContent.includes('capital of France') && ${lastOf('msg-assistant')}?.textContent.includes('on the Seine')`, { what: 'the first question with its chosen answer' })
    // the next message continues the version shown, and only that one goes to the model
    await send('How many bridges are there?')
    await waitIdle()
    const reqs = await llm.requests()
    const last = JSON.stringify(reqs[reqs.length - 1].messages)
    assert.match(last, /on the Seine/)
    assert.doesNotMatch(last, /Rome|"Paris\."|Italy/)
    // nothing was overwritten: the log holds every version and the branch events
    const log = readFileSync(join(dataDir, 'conversations', showcase, 'messages.jsonl'), 'utf8')
    for (const want of ['"Paris."', '"Rome."', '"event":"branch"', '"event":"branch_switch"', '"editOf":']) assert.ok(log.includes(want), `the log lacks ${want}`)
    await matrix('60-versions', async () => {
      await hover(`${all('msg-assistant')}[0]`)
    })
  })

  await step('copy buttons on messages and code blocks', async () => {
    await send('code please')
    await waitIdle()
    await app.waitFor(`${lastOf('msg-assistant')}?.querySelector('pre code')`, { what: 'an answer with a code block' })
    await hover(lastOf('msg-assistant'))
    await realClick(`${lastOf('msg-assistant')}.querySelector('[data-testid="msg-copy"]')`)
    await app.waitFor(`${lastOf('msg-assistant')}.querySelector('[data-testid="msg-copy"]').dataset.state === 'copied'`, { what: 'Copied' })
    assert.match(await clipboard(), /^Like this:\n\n```go\nfunc main\(\) \{/)
    // the code block under the pointer gets its own button
    await hover(`${lastOf('msg-assistant')}.querySelector('pre')`)
    await app.waitFor(`!!${lastOf('msg-assistant')}.querySelector('[data-testid="code-copy"]')`, { what: 'the code block copy button' })
    await realClick(`${lastOf('msg-assistant')}.querySelector('[data-testid="code-copy"]')`)
    await app.waitFor(`${lastOf('msg-assistant')}.querySelector('[data-testid="code-copy"]')?.dataset.state === 'copied'`, { what: 'the code copied' })
    assert.equal((await clipboard()).trim(), 'func main() {\n\tfmt.Println("hello")\n}')
    await matrix('61-copy-buttons', async () => {
      await hover(`${lastOf('msg-assistant')}.querySelector('pre')`)
    })
  })

  await step('the actions of a message: icons of 28 px or more, shown under the latest answer and message without the pointer, readable, reached from the keyboard', async () => {
    const win = app.windowId
    // the pointer off the messages
    await hover(sel('composer-input'))
    await app.evaluate(`${sel('message-list')}.scrollTop = 1e9`)
    await sleep(150)
    const opacity = (row) => `(() => { const a = ${row}?.querySelector('[data-testid="msg-actions"]'); return a ? getComputedStyle(a).opacity : 'none' })()`
    assert.equal(await app.evaluate(opacity(lastOf('msg-assistant'))), '1', 'the latest answer hides its actions')
    assert.equal(await app.evaluate(opacity(lastOf('msg-user'))), '1', 'the latest message hides its actions')
    const earlier = `${all('msg-assistant')}.at(-2)`
    if (await app.evaluate(`!!${earlier}`)) assert.equal(await app.evaluate(opacity(earlier)), '0', 'an earlier answer shows its actions without the pointer')
    // each action: a target of 28 × 28 px or more, a name, a tooltip, and
    // its icon at 4.5:1 or more on what is behind it, in both themes
    const measure = `(() => {
      const lum = (c) => { const [r, g, b] = c.match(/[\\d.]+/g).slice(0, 3).map((v) => { const s = v / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4 }); return 0.2126 * r + 0.7152 * g + 0.0722 * b }
      const behind = (el) => { for (let e = el; e; e = e.parentElement) { const c = getComputedStyle(e).backgroundColor; if (c && !/rgba\\(.*, 0\\)$/.test(c) && c !== 'transparent') return c } return 'rgb(255, 255, 255)' }
      const rows = [${lastOf('msg-assistant')}, ${lastOf('msg-user')}]
      return rows.flatMap((row) => [...row.querySelectorAll('.msg-foot button')].map((b) => {
        const r = b.getBoundingClientRect()
        const [hi, lo] = [lum(getComputedStyle(b).color), lum(behind(b))].sort((x, y) => y - x)
        return { id: b.dataset.testid, w: r.width, h: r.height, name: b.getAttribute('aria-label') || '', title: b.title, ratio: (hi + 0.05) / (lo + 0.05), disabled: b.disabled }
      }))
    })()`
    for (const theme of ['light', 'dark']) {
      await app.evaluate(`document.documentElement.dataset.theme = ${JSON.stringify(theme)}`)
      await sleep(150)
      const buttons = await app.evaluate(measure)
      assert.ok(buttons.length >= 8, `only ${buttons.length} actions under the latest answer and message`)
      for (const b of buttons) {
        assert.ok(b.w >= 28 && b.h >= 28, `${b.id} is ${b.w}×${b.h} px`)
        assert.ok(b.name && b.title, `${b.id} has no name or tooltip`)
        if (!b.disabled) assert.ok(b.ratio >= 4.5, `${b.id} in the ${theme} theme: ${b.ratio.toFixed(2)}:1`)
      }
      console.log(`      actions in the ${theme} theme: ${buttons.length}, smallest ${Math.min(...buttons.map((b) => b.w))}×${Math.min(...buttons.map((b) => b.h))} px, lowest contrast ${Math.min(...buttons.filter((b) => !b.disabled).map((b) => b.ratio)).toFixed(2)}:1`)
    }
    await app.evaluate(`document.documentElement.dataset.theme = 'light'`)
    await matrix('66-message-actions', async () => {
      await hover(sel('composer-input'))
      await app.evaluate(`${sel('message-list')}.scrollTop = 1e9`)
      await sleep(150)
    })
    // Shift+Tab from the composer goes back through the actions of the latest answer
    await app.evaluate(`${sel('composer-input')}.focus()`)
    const focused = `(() => { const a = document.activeElement; const row = a?.closest('[data-testid="msg-assistant"], [data-testid="msg-user"]'); return row ? row.dataset.id + ':' + a.dataset.testid : '' })()`
    let reached = ''
    for (let i = 0; i < 8 && !reached; i++) {
      await app.xdotool('key', '--window', win, 'shift+Tab')
      await sleep(80)
      reached = await app.evaluate(focused)
    }
    const lastAnswer = await app.evaluate(`${lastOf('msg-assistant')}.dataset.id`)
    assert.equal(reached, `${lastAnswer}:msg-fork`, 'Shift+Tab from the composer does not reach the actions of the latest answer')
    await app.xdotool('key', '--window', win, 'shift+Tab')
    await sleep(80)
    assert.equal(await app.evaluate(focused), `${lastAnswer}:msg-pin`)
    await app.screenshot('66-message-actions-keyboard')
    await app.evaluate(`document.activeElement.blur()`)
  })

  await step('a code block header with Wrap; zoom with Ctrl + = − 0; a 600 px window; the conversations hidden with Ctrl+B', async () => {
    const win = app.windowId
    const block = `${lastOf('msg-assistant')}.querySelector('.md-codeblock')`
    assert.equal(await app.evaluate(`${block}.querySelector('.md-code-lang').textContent`), 'go')
    await realClick(`${block}.querySelector('[data-code-action="wrap"]')`)
    await app.waitFor(`${block}.classList.contains('is-wrapped')`, { what: 'the code wrapped' })
    // the zoom: three steps up is 150 %, kept for the next start
    for (let i = 0; i < 3; i++) await app.xdotool('key', '--window', win, 'ctrl+equal')
    await app.waitFor(`document.documentElement.dataset.zoom === '150'`, { what: 'the page at 150 %' })
    assert.equal(await app.evaluate(`JSON.parse(localStorage.getItem('crewagent.display')).zoom`), 1.5)
    const fits = `(() => { const r = ${sel('composer-send')}.getBoundingClientRect(); return document.documentElement.scrollWidth <= window.innerWidth + 1 && r.right > 0 })()`
    await matrix('63-zoom-150', async () => {
      await app.evaluate(`${sel('message-list')}.scrollTop = 1e9`)
      assert.ok(await app.evaluate(fits), 'the page overflows at 150 %')
    })
    await app.resize(900, 650)
    await app.click('open-settings')
    await app.waitForTestId('settings-screen')
    assert.ok(await app.evaluate(`(() => { const b = ${sel('settings-screen')}.getBoundingClientRect(); return b.right <= window.innerWidth + 1 && b.bottom <= window.innerHeight + 1 })()`), 'Settings does not fit at 150 %')
    await app.screenshot('63-zoom-150-settings')
    // the answers' text size, applied at once
    const answerSize = `parseFloat(getComputedStyle(${lastOf('msg-assistant')}.querySelector('.bubble-assistant')).fontSize)`
    const before = await app.evaluate(answerSize)
    await app.evaluate(`${sel('set-text-size-large')}.click()`)
    await app.waitFor(`document.documentElement.dataset.textSize === 'large'`, { what: 'the large text size' })
    const after = await app.evaluate(answerSize)
    assert.ok(Math.abs(after / before - 16.5 / 15) < 0.01, `the answers' text went from ${before} to ${after}`)
    await app.evaluate(`${sel('set-text-size-large')}.scrollIntoView({ block: 'center' })`)
    await app.screenshot('63-zoom-150-text-size')
    await app.evaluate(`${sel('set-text-size-default')}.click()`)
    await app.waitFor(`!document.documentElement.dataset.textSize`, { what: 'the default text size' })
    await app.xdotool('key', 'Escape')
    await app.waitFor(`!${sel('settings-screen')}`, { what: 'Settings closed' })
    await app.xdotool('key', '--window', win, 'ctrl+minus')
    await app.waitFor(`document.documentElement.dataset.zoom === '125'`, { what: 'the page at 125 %' })
    await app.xdotool('key', '--window', win, 'ctrl+0')
    await app.waitFor(`document.documentElement.dataset.zoom === '100'`, { what: 'the page back at 100 %' })
    // the narrowest window
    await app.resize(600, 650)
    for (const theme of ['light', 'dark']) {
      await app.evaluate(`document.documentElement.dataset.theme = ${JSON.stringify(theme)}`)
      assert.ok(await app.evaluate(fits), 'the page overflows at 600 px')
      await app.screenshot(`64-window-600-${theme}`)
    }
    await app.xdotool('key', '--window', win, 'ctrl+b')
    await app.waitFor(`!${sel('sidebar')}`, { what: 'the conversations hidden' })
    await app.screenshot('65-sidebar-hidden-600-dark')
    await app.evaluate(`document.documentElement.dataset.theme = 'light'`)
    await app.click('sidebar-toggle')
    await app.waitForTestId('sidebar')
    await app.resize(1280, 800)
  })

  await step('replies in Agent mode say who answered', async () => {
    await app.click('mode-agent')
    await app.waitForTestId('agent-picker')
    await send('Who are you?')
    await waitIdle()
    await app.waitFor(`${lastOf('msg-speaker')}?.textContent.includes('Mara')`, { what: 'the agent name on the reply' })
    assert.match(await app.evaluate(`${lastOf('msg-speaker')}.textContent`), /🔍\s*Mara/)
    await matrix('62-agent-name', async () => {
      await app.evaluate(`${lastOf('msg-speaker')}.scrollIntoView({ block: 'center' })`)
    })
    await app.click('mode-chat')
  })

  await step('a stop is a quiet note with Continue', async () => {
    await send('a slow answer please')
    await app.waitFor(`${sel('msg-live')}?.textContent.length > 60`, { what: 'the slow answer to start' })
    await app.xdotool('key', 'Escape')
    await waitIdle('the stop')
    await app.waitFor(`!!${lastOf('msg-stopped')}?.querySelector('[data-testid="stopped-continue"]')`, { what: 'the stopped note with Continue' })
    await matrix('63-stopped', async () => {
      await app.evaluate(`${lastOf('msg-stopped')}.scrollIntoView({ block: 'end' })`)
    })
  })

  await step('an unreachable server is said in words, with the details one click away and Settings', async () => {
    await llm.stop()
    await send('Are you there?')
    await waitIdle('the failed reply')
    await app.waitForTestId('msg-error')
    const e = await app.evaluate(`(() => { const el = ${lastOf('msg-error')}; return {
      title: el.querySelector('[data-testid="problem-title"]').textContent, advice: el.querySelector('[data-testid="problem-advice"]').textContent,
      details: el.querySelector('[data-testid="problem-details"]').textContent, open: el.querySelector('[data-testid="problem-details"]').open,
      visible: el.innerText, settings: !!el.querySelector('[data-testid="error-open-settings"]'),
      cont: !!el.querySelector('[data-testid="error-continue"]'), retry: !!el.querySelector('[data-testid="error-retry"]') } })()`)
    assert.equal(e.title, "Can't reach the model server")
    assert.match(e.advice, /Nothing answered at 127\.0\.0\.1:\d+/)
    assert.match(e.details, /connection refused/)
    assert.equal(e.open, false, 'the details are open from the start')
    assert.doesNotMatch(e.visible, /dial tcp|LLM_NETWORK/, 'the raw error shows')
    assert.deepEqual([e.settings, e.cont, e.retry], [true, false, true])
    await matrix('64-unreachable', async () => {
      await app.evaluate(`${lastOf('msg-error')}.scrollIntoView({ block: 'end' })`)
    })
    // the server's own words and the code, one click away
    await app.evaluate(`${lastOf('msg-error')}.querySelector('[data-testid="problem-details"] summary').click()`)
    await app.waitFor(`${lastOf('msg-error')}.querySelector('[data-testid="problem-details"]').open`, { what: 'the details open' })
    await app.evaluate(`${lastOf('msg-error')}.scrollIntoView({ block: 'end' })`)
    await app.screenshot('64-unreachable-details')
    await app.evaluate(`${lastOf('msg-error')}.querySelector('[data-testid="error-open-settings"]').click()`)
    await app.waitForTestId('settings-form')
    await app.click('settings-cancel')
    // the server is back: Retry answers
    await llm.restart()
    await app.evaluate(`${lastOf('msg-error')}.querySelector('[data-testid="error-retry"]').click()`)
    await waitIdle('the retried reply')
    await app.waitFor(`${lastOf('msg-assistant')}?.textContent.includes('You said: Are you there?')`, { what: 'the answer once the server is back' })
    // answered since: the failure keeps its words and offers nothing more
    await app.waitFor(`!${lastOf('msg-error')}.querySelector('[data-testid="error-retry"], [data-testid="error-open-settings"]')`, { what: 'the settled failure without actions' })
  })

  await step('export from the ⋯ menu through the native save dialog, and on the command line', async () => {
    await app.click('conv-menu-toggle')
    await app.waitForTestId('conv-menu')
    await matrix('65-export-menu', async () => {
      if (!(await app.exists('conv-menu'))) await app.click('conv-menu-toggle')
      await app.waitForTestId('conv-menu')
    })
    if (!(await app.exists('conv-menu'))) await app.click('conv-menu-toggle')
    await app.click('export-md')
    const dialog = (await app.xdotool('search', '--sync', '--onlyvisible', '--name', '^Export the conversation$')).split('\n')[0]
    const target = join(tmp, 'exported.md')
    // the dialog is small enough for a 1280x800 screen, and on the screen whole
    const geometry = async () => {
      const geo = Object.fromEntries((await app.xdotool('getwindowgeometry', '--shell', dialog)).split('\n').filter(Boolean).map((l) => l.split('=')))
      return ['X', 'Y', 'WIDTH', 'HEIGHT'].map((k) => Number(geo[k]))
    }
    const fits = ([x, y, w, h]) => w > 0 && h > 0 && w <= 1280 && h <= 800 && x >= 0 && y >= 0 && x + w <= 1440 && y + h <= 900
    let box = await geometry()
    for (let i = 0; i < 50 && !fits(box); i++) {
      await sleep(100)
      box = await geometry()
    }
    assert.ok(fits(box), `the save dialog does not fit a 1280x800 screen: ${box[2]}x${box[3]} at ${box[0]},${box[1]}`)
    await app.xdotool('windowfocus', '--sync', dialog)
    await app.xdotool('key', 'ctrl+a')
    await app.xdotool('type', '--delay', '10', target)
    await app.screenshot('66-export-dialog', { screen: true })
    await app.xdotool('key', 'Return')
    await app.waitFor(`${sel('chat-notice')}?.textContent.includes(${JSON.stringify(target)})`, { timeoutMs: 15000, what: 'the saved notice' })
    const md = readFileSync(target, 'utf8')
    assert.match(md, /^# What is the capital of France\?/)
    assert.match(md, /### You · /)
    assert.match(md, /### 🔍 Mara/)
    assert.match(md, /\*Version 2 of 2\*/)
    assert.match(md, /> \*\*Failed: Can't reach the model server\*\*/)
    assert.match(md, /Stopped before the answer was complete/)
    assert.doesNotMatch(md, /Rome\./, 'a version not shown was exported')
    // the same conversation on the command line, while the window has the project open
    const run = promisify(execFile)
    const { stdout } = await run(join(repo, 'build/bin/crewagent'), ['conversations', 'export', showcase, '--format', 'json', '--home', home, '--project', projectRoot])
    const doc = JSON.parse(stdout)
    assert.equal(doc.conversation.id, showcase)
    assert.ok(doc.entries.some((e) => e.content === 'Rome.'), 'the JSON export lacks a version')
  })

  await step('settings: test connection and a live theme', async () => {
    await app.click('open-settings')
    await app.waitForTestId('settings-form')
    assert.equal(await app.evaluate(`${sel('set-llm.baseUrl')}.readOnly`), true, 'an overridden field is editable')
    await app.waitForTestId('override-llm.baseUrl')
    await app.click('settings-test')
    await app.waitFor(`${sel('settings-test-result')}?.dataset.ok === 'true'`, { timeoutMs: 15000, what: 'a successful connection test' })
    await app.screenshot('24-settings')
    await app.click('set-theme-dark')
    await app.waitFor(`document.documentElement.dataset.theme === 'dark'`, { what: 'the dark theme' })
    // saved as chosen
    const themeSaved = () => {
      try {
        return JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8')).theme
      } catch {
        return null
      }
    }
    for (let i = 0; i < 100 && themeSaved() !== 'dark'; i++) await sleep(50)
    await app.waitForTestId('settings-saved')
    const saved = JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8'))
    assert.equal(saved.theme, 'dark')
    assert.equal(saved.llm.baseUrl ?? '', '', 'the environment override was written to settings.json')
    await app.click('settings-cancel')
    await app.evaluate(`${all('conv-item')}.find((el) => el.dataset.id === ${JSON.stringify(firstConv)}).querySelector('[data-testid="conv-open"]').click()`)
    await app.waitFor(`${all('msg-assistant')}.length > 0`, { what: 'messages in the dark theme' })
    await app.screenshot('25-dark-theme')
  })

  await step('no content security policy violations', async () => {
    assert.deepEqual(await app.evaluate('window.__cspViolations'), [])
  })
}
