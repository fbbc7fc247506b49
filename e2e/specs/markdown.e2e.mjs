// Answers built to freeze the markdown view, streamed by the fake OpenAI server
// into the real window: a 100 KB one-line code block, 20,000 autolinks, a
// 5,000-column table, a 2,000-level nested list and 2,000 nested quotes. For
// each, the longest time the page went without a frame while the answer
// streamed and rendered, and the time from the end of the stream to the final
// message on screen, must stay under a second (FIGURE lines); the page must
// stay usable afterwards. A long ordinary answer (74 KB of paragraphs and
// lists) is formatted over several frames, also within a second each.
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { startFakeLLM } from '../lib/fakellm.mjs'

const inputs = {
  'long-code-line': '```js\n' + 'x'.repeat(100_000) + '\n```',
  autolinks: Array.from({ length: 20_000 }, (_, i) => `https://example.com/p/${i}`).join(' '),
  // just under the link limit, one per paragraph: formatted, each link checked
  'links-under-the-limit': Array.from({ length: 1900 }, (_, i) => `see https://example.com/p/${i}`).join('\n\n'),
  'wide-table': '|' + ' a |'.repeat(5000) + '\n|' + '---|'.repeat(5000) + '\n|' + ' 1 |'.repeat(5000),
  'nested-list': '- '.repeat(2000) + 'two thousand levels down',
  'nested-quotes': '> '.repeat(2000) + 'two thousand quotes down',
  // not pathological, just long: formatted block by block without holding the window
  'long-answer': Array.from({ length: 1500 }, (_, i) => `Point ${i}: keep **this** and \`that\` in mind.\n\n- one\n- two`).join('\n\n'),
}

export async function setup({ tmp, repo }) {
  const rules = Object.entries(inputs).map(([name, text]) => ({ match: `pathological ${name}`, response: { text, chunks: 12 } }))
  const llm = await startFakeLLM({ binary: join(repo, 'build/bin/fakellm'), rules, dir: tmp })
  return {
    llm,
    env: { CREWAGENT_LLM_BASE_URL: llm.url, CREWAGENT_LLM_MODEL: 'gpt-4o-mini', CREWAGENT_TOKEN_BUDGET: '2000000' },
    cleanup: () => llm.stop(),
  }
}

const sel = (id) => `document.querySelector('[data-testid="${id}"]')`
const all = (id) => `[...document.querySelectorAll('[data-testid="${id}"]')]`

export default async function markdown({ app, step, tmp }) {
  const workdir = join(tmp, 'work')
  mkdirSync(workdir, { recursive: true })

  await step('open a project', async () => {
    await app.waitForTestId('start-screen')
    await app.click('new-project-button')
    await app.typeInto('new-project-name-input', 'markdown')
    await app.typeInto('new-project-parent-input', workdir)
    await app.click('new-project-submit')
    await app.waitForTestId('workspace-screen')
    await app.click('conv-new')
    await app.waitForTestId('chat-empty')
  })

  let shot = 40
  for (const name of Object.keys(inputs)) {
    await step(`"${name}" streams and renders without freezing the window`, async () => {
      // the list is virtualised: the newest answer is the last row, whatever the count
      const lastId = `${all('msg-assistant')}.pop()?.dataset.id ?? ''`
      const before = await app.evaluate(lastId)
      // A frame clock: the longest gap between two frames while the answer arrives,
      // and the moments the stream ended and the final message appeared.
      await app.evaluate(`(() => {
        const m = (window.__frames = { maxGap: 0, last: performance.now(), on: true, streamEnd: 0, shown: 0 });
        const tick = (t) => {
          if (t - m.last > m.maxGap) { m.maxGap = t - m.last; m.gapAt = t }
          m.last = t;
          const view = document.querySelector('[data-testid="chat-view"]');
          if (view?.dataset.streaming === 'true') m.streamed = true;
          if (!m.streamEnd && view?.dataset.streaming === 'false' && m.streamed) m.streamEnd = t;
          if (!m.shown && m.streamed && (${lastId}) !== ${JSON.stringify(before)}) m.shown = t;
          if (m.on) requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
        return true })()`)
      await app.typeInto('composer-input', `pathological ${name}`)
      await app.press('composer-input', 'Enter')
      await app.waitFor(`(${lastId}) !== ${JSON.stringify(before)} && ${sel('chat-view')}?.dataset.streaming === 'false'`, {
        timeoutMs: 60000,
        what: `the ${name} answer`,
      })
      // two more frames: the message is laid out and painted
      await app.call('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))')
      const f = await app.evaluate(`(() => { const m = window.__frames; m.on = false; return { maxGap: m.maxGap, gapAt: m.streamEnd ? m.gapAt - m.streamEnd : 0, render: m.shown && m.streamEnd ? Math.max(0, m.shown - m.streamEnd) : -1 } })()`)
      const last = `${all('msg-assistant')}.pop()`
      // everything formatted in the end (long answers format over several frames)
      await app.waitFor(`!${last}.querySelector('.md-pending')`, { timeoutMs: 30000, what: 'every block formatted' })
      const shown = await app.evaluate(`(() => { const el = ${last}; return { plain: !!el.querySelector('.md-plain, .md-raw'), code: !!el.querySelector('pre.md-code'), chars: el.textContent.length } })()`)
      console.log(`FIGURE markdown ${name}: longest frame gap ${Math.round(f.maxGap)} ms (${f.gapAt < 0 ? 'while streaming' : 'after the stream'}), stream end to message ${Math.round(f.render)} ms, ${shown.chars} characters, ${shown.plain ? 'plain text' : shown.code ? 'code block' : 'formatted'}`)
      // Each input finishes under a second: no frame gap and no wait for the message
      // longer than that (unbounded, these inputs froze the window for 12 to 28 s).
      // Measured on the two-core development machine while it ran other builds and
      // tests (load average 6 to 7): longest gap 110-320 ms for the inputs built to
      // freeze the view, 410-430 ms for the long ordinary answer; the message
      // 0-490 ms after the stream ended.
      assert.ok(f.maxGap < 1000, `the window froze for ${Math.round(f.maxGap)} ms`)
      assert.ok(f.render < 1000, `the message took ${Math.round(f.render)} ms to appear after the stream ended`)
      assert.ok(shown.chars >= Math.min(inputs[name].length, 4000) * 0.5, `the answer lost its text (${shown.chars} characters)`)
      // no scroll area inside the conversation's (a code block may scroll sideways)
      const nested = await app.evaluate(`[...${sel('message-list')}.querySelectorAll('*')].filter((el) => { const s = getComputedStyle(el);
        return (/(auto|scroll)/.test(s.overflowY) && el.scrollHeight > el.clientHeight + 1) || (/(auto|scroll)/.test(s.overflowX) && el.scrollWidth > el.clientWidth + 1 && el.tagName !== 'PRE') }).map((el) => el.className || el.tagName)`)
      assert.deepEqual(nested, [], 'a scroll area inside the conversation')
      // still responsive: the composer takes input
      await app.typeInto('composer-input', 'still here')
      await app.typeInto('composer-input', '')
      await app.evaluate(`${last}.scrollIntoView({ block: 'end' })`)
      await app.screenshot(`${shot++}-markdown-${name}`)
    })
  }
}
