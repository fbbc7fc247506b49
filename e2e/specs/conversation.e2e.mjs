// The conversation side of the window against the fake OpenAI server: pins
// on messages; /compact with a focus, its progress and outcome, and the
// compaction as a card that opens to the summary and the pinned messages;
// the context inspector showing what the model remembers (summary, pins,
// messages recalled and why, compactions) with the meter's own number; a
// workflow run whose steps are one row each, in words, with the raw calls
// one click away and no internal names on screen; the status said once and
// the package once; the run panel folded over the conversation in narrow
// windows (the composer keeps its width at 900, 1100 and 1440 wide); the
// artifact viewer showing Markdown; no scroll area inside the conversation
// or the run panel; "Jump to latest" never over the text. Shot at 900x650
// and 1440x900, light and dark.
import assert from 'node:assert/strict'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { writeFileSync } from 'node:fs'
import { startFakeLLM } from '../lib/fakellm.mjs'

const call = (name, args, extra = {}) => ({ tool_calls: [{ name, arguments: JSON.stringify(args) }], ...extra })
const patch = (update, extra = {}) => call('fs.apply_patch', { path: '@state/workflow.md', operation: 'updateFrontmatter', update }, extra)
const ideaNotes = '## Idea\nA shared grocery list.\n\n## Audience\nFlatmates.\n\n## Problem\nDuplicates.\n'
const brief = '# Project brief: Shared grocery list\n\n## Problem\nFlatmates buy **duplicates**.\n\n## Solution\n- One list everybody edits\n- Reminders at the shop\n'

// Facts said early in the chat, that a compaction must keep.
const facts = [
  'Plan the team offsite. The budget must never exceed 4711 EUR.',
  'We decided on Lakeside Lodge in Hallstatt as the venue.',
  'The caterer is called Alpenkost and needs the headcount by May 3.',
  'Ingrid Solberg from finance approves every invoice.',
  'Travel: the train leaves Vienna at 07:42 from platform 9.',
  'Keep the agenda to three sessions a day at most.',
]

export const timeoutMs = 360000

export async function setup({ tmp, repo, home }) {
  const turn1 = 'shared grocery list'
  const turn2 = 'which format should the brief have'
  const rules = [
    // a run: the first step, a question; the decision, the draft, the end
    { match: turn1, times: 1, response: call('fs.read', { path: '@state/workflow.md' }) },
    { match: turn1, on_tool_result: true, times: 1, response: call('fs.read', { path: '@pkg/workflows/write-brief/steps/capture-idea.md' }) },
    { match: turn1, on_tool_result: true, times: 1, response: call('fs.write', { path: '@project/artifacts/idea-notes.md', content: ideaNotes }) },
    {
      match: turn1,
      on_tool_result: true,
      times: 1,
      response: patch({ stepsCompleted: { append: ['capture-idea'] }, currentNodeId: { set: 'check-clarity' }, variables: { merge: { ideaSummary: 'A shared grocery list.', ideaClear: true } } }),
    },
    { match: turn1, on_tool_result: true, times: 1, response: call('ui.ask_user', { type: 'selection', prompt: 'Which format should the brief have?', options: ['One page', 'Bullet summary'] }) },
    {
      match: turn2,
      times: 1,
      response: patch({
        stepsCompleted: { append: ['check-clarity'] },
        currentNodeId: { set: 'draft-brief' },
        decisionLog: { append: [{ from: 'check-clarity', to: 'draft-brief', label: 'clear enough', reason: 'Idea, audience and problem are known.' }] },
      }),
    },
    { match: turn2, on_tool_result: true, times: 1, response: call('fs.read', { path: '@pkg/assets/brief-template.md' }) },
    // a tool that fails: the step says so in words
    { match: turn2, on_tool_result: true, times: 1, response: call('fs.read', { path: '@project/notes/missing.md' }) },
    { match: turn2, on_tool_result: true, times: 1, response: call('fs.write', { path: '@project/artifacts/project-brief.md', content: brief }) },
    { match: turn2, on_tool_result: true, times: 1, response: patch({ stepsCompleted: { append: ['draft-brief'] }, currentNodeId: { set: 'end' } }) },
    { match: turn2, on_tool_result: true, times: 1, response: patch({ stepsCompleted: { append: ['end'] }, variables: { merge: { workflowStatus: 'complete' } } }) },
    { match: turn2, on_tool_result: true, times: 1, response: { text: 'Done! The one-page brief is in **artifacts/project-brief.md**.', chunks: 4 } },
    // a long tool output in chat: its JSON grows in place, no scroll area
    { match: 'list the big folder', response: call('fs.list', { path: '@project' }) },
    { match: 'slow', response: { text: 'Slow words arriving one by one. ', repeat: 80, chunks: 160, chunk_delay_ms: 30 } },
    { match: '*', on_tool_result: true, response: { text: 'Here is what the tool found.' } },
    { match: 'caterer again', response: { text: 'Alpenkost; they need the headcount by May 3.' } },
    // long, ordinary answers: what a compaction leaves out
    { match: '*', response: { text: 'Noted. We can look at the details of this later, once the rest of the plan is in place and everybody has read it. ', repeat: 14, chunks: 4 } },
  ]
  const llm = await startFakeLLM({ binary: join(repo, 'build/bin/fakellm'), rules, dir: tmp })
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ llm: { maxRetries: 0 } }, null, 2), { mode: 0o600 })
  return {
    llm,
    env: { CREWAGENT_LLM_BASE_URL: llm.url, CREWAGENT_LLM_MODEL: 'gpt-4o-mini', CREWAGENT_TOKEN_BUDGET: '16000' },
    cleanup: () => llm.stop(),
  }
}

const sel = (id) => `document.querySelector('[data-testid="${id}"]')`
const all = (id) => `[...document.querySelectorAll('[data-testid="${id}"]')]`
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

// Words that must not reach the screen: aliases, protocol markers, node ids,
// variable names, error codes as text, ids.
const leaks = /@state|@pkg|@project|TOOL_RESULT_PREVIEW|CONVERSATION_SUMMARY|RUN_DIRECTIVE|NODE_COMPLETE|ARTIFACT_SAVED|key-messages|capture-idea|check-clarity|draft-brief|ideaClear|workflowStatus|stepsCompleted|currentNodeId|E_[A-Z_]{3,}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/

export default async function conversation({ app, step, tmp, home }) {
  const workdir = join(tmp, 'work')
  mkdirSync(workdir, { recursive: true })
  let projectRoot, dataDir, chatConv, runConv
  const send = async (text) => {
    await app.typeInto('composer-input', text)
    await app.press('composer-input', 'Enter')
  }
  const waitIdle = (what) => app.waitFor(`${sel('chat-view')}?.dataset.streaming === 'false'`, { timeoutMs: 20000, what: what ?? 'the reply to end' })
  const logOf = (id) =>
    readFileSync(join(dataDir, 'conversations', id, 'messages.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
  const matrix = (name, prepare) => app.screenshots(name, prepare)
  /** The elements inside root (a selector) that scroll on their own: a
   * scroll area nested in the one the user scrolls. */
  const nestedScrollers = (root) =>
    app.evaluate(`(() => { const root = document.querySelector(${JSON.stringify(root)}); if (!root) return ['no ' + ${JSON.stringify(root)}];
      return [...root.querySelectorAll('*')].filter((el) => { const s = getComputedStyle(el);
        return (/(auto|scroll)/.test(s.overflowY) && el.scrollHeight > el.clientHeight + 1) || (/(auto|scroll)/.test(s.overflowX) && el.scrollWidth > el.clientWidth + 1 && el.tagName !== 'PRE') })
        .map((el) => el.className || el.tagName) })()`)

  await step('a project and a conversation with some history', async () => {
    await app.waitForTestId('start-screen')
    await app.evaluate(`(() => { window.__cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI)); return true })()`)
    await app.click('new-project-button')
    await app.typeInto('new-project-name-input', 'offsite')
    await app.typeInto('new-project-parent-input', workdir)
    await app.click('new-project-submit')
    await app.waitForTestId('workspace-screen')
    projectRoot = join(workdir, 'offsite')
    dataDir = join(home, 'projects', JSON.parse(readFileSync(join(projectRoot, '.crewagent.json'), 'utf8')).projectId)
    await app.click('conv-new')
    await app.waitForTestId('chat-empty')
    chatConv = await app.evaluate(`${sel('chat-view')}.dataset.conversation`)
    for (const f of facts) {
      await send(f)
      await waitIdle()
    }
    await app.waitFor(`${all('msg-assistant')}.length === ${facts.length}`, { what: 'an answer to every message' })
    // package once: the top bar, not the status bar
    await app.waitFor(`${sel('workspace-package')}?.textContent.includes('crewagent-demo')`, { what: 'the package in the top bar' })
    assert.equal(await app.exists('status-package'), false, 'the package is said twice')
  })

  /** Scrolls the virtualised list from the top until expr (an element) is
   * rendered, and puts it in the middle. */
  const reveal = async (expr) => {
    await app.evaluate(`${sel('message-list')}.scrollTop = 0`)
    for (let i = 0; i < 60; i++) {
      await sleep(60)
      if (await app.evaluate(`!!(${expr})`)) break
      await app.evaluate(`(() => { const l = ${sel('message-list')}; l.scrollTop += l.clientHeight * 0.6; return true })()`)
    }
    await app.evaluate(`(${expr}).scrollIntoView({ block: 'center' })`)
    await sleep(100)
  }

  await step('a message is pinned and says so; the log records the pin', async () => {
    const first = `${all('msg-user')}.find((m) => m.textContent.includes('4711 EUR'))`
    await reveal(first)
    assert.equal(await app.evaluate(`!!${first}.querySelector('[data-testid="msg-pinned"]')`), false)
    await app.evaluate(`${first}.querySelector('[data-testid="msg-pin"]').click()`)
    await app.waitFor(`!!${first}?.querySelector('[data-testid="msg-pinned"]')`, { what: 'the pinned mark' })
    assert.equal(await app.evaluate(`${first}.querySelector('[data-testid="msg-pin"]').getAttribute('aria-pressed')`), 'true')
    // the pin among the actions is filled once pinned
    assert.notEqual(await app.evaluate(`getComputedStyle(${first}.querySelector('[data-testid="msg-pin"] .icon-fill')).fill`), 'none', 'the pin is not filled')
    const log = logOf(chatConv)
    const pinned = log.find((e) => e.type === 'msg' && e.role === 'user' && e.content?.includes('4711 EUR'))
    assert.ok(log.some((e) => e.event === 'pin' && e.ref_msg_id === pinned.id), 'no pin event in the log')
    // a second pin, taken back: unpinned in the log and on screen
    const second = `${all('msg-user')}.find((m) => m.textContent.includes('Ingrid'))`
    await reveal(second)
    await app.evaluate(`${second}.querySelector('[data-testid="msg-pin"]').click()`)
    await app.waitFor(`!!${second}?.querySelector('[data-testid="msg-pinned"]')`, { what: 'the second pin' })
    await app.evaluate(`${second}.querySelector('[data-testid="msg-pin"]').click()`)
    await app.waitFor(`!${second}?.querySelector('[data-testid="msg-pinned"]')`, { what: 'the second pin taken back' })
    assert.ok(logOf(chatConv).some((e) => e.event === 'unpin'), 'no unpin event in the log')
    await matrix('70-pinned-message', async () => {
      await reveal(first)
      // its actions shown (focus), the pin filled
      await app.evaluate(`${first}.querySelector('[data-testid="msg-pin"]').focus()`)
    })
    await app.evaluate(`document.activeElement.blur()`)
  })

  await step('/compact with a focus: progress, the outcome, and the card with the summary and the pins', async () => {
    // every state the status line takes
    await app.evaluate(`(() => { window.__compactStates = [];
      new MutationObserver(() => { const k = ${sel('compaction-status')}?.dataset.kind; if (k && window.__compactStates.at(-1) !== k) window.__compactStates.push(k) })
        .observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-kind'] }); return true })()`)
    // back at the end of the conversation, where one types
    if (await app.exists('jump-latest')) await app.click('jump-latest')
    await app.evaluate(`${sel('composer-input')}.focus()`)
    await app.xdotool('type', '--delay', '20', '/compact the budget and the dates')
    await app.waitFor(`${sel('compaction-status')}?.dataset.kind === 'hint'`, { what: 'the hint while typing the command' })
    const before = Number(await app.evaluate(`${sel('context-meter')}.dataset.used`))
    await app.xdotool('key', 'Return')
    await app.waitFor(`${sel('compaction-status')}?.dataset.kind === 'info'`, { timeoutMs: 15000, what: 'the outcome of the compaction' })
    const states = await app.evaluate('window.__compactStates')
    assert.ok(states.includes('progress'), `no progress was shown: ${states}`)
    const outcome = await app.text('compaction-status')
    const m = /^Compacted (\d+) messages: ([\d.]+k?) → ([\d.]+k?) tokens/.exec(outcome)
    assert.ok(m, `the outcome: ${outcome}`)
    const compacted = Number(m[1])
    assert.equal(await app.evaluate(`${sel('composer-input')}.value`), '', 'the command stayed in the input')
    // the log: one compaction, manual, with the focus; nothing was sent to the model
    const ev = logOf(chatConv).filter((e) => e.event === 'compaction')
    assert.equal(ev.length, 1)
    assert.equal(ev[0].data.reason, 'manual')
    assert.equal(ev[0].data.focus, 'the budget and the dates')
    assert.equal(ev[0].data.count, compacted)
    // the card
    await app.waitForTestId('event-compaction')
    assert.equal(await app.text('compaction-title'), `Compacted ${compacted} messages`)
    assert.match(await app.text('event-compaction'), /you asked, focusing on “the budget and the dates”/)
    await app.click('compaction-toggle')
    await app.waitForTestId('compaction-summary')
    const summary = await app.text('compaction-summary')
    assert.match(summary, /4711 EUR/)
    assert.match(summary, /Lakeside Lodge/)
    assert.doesNotMatch(summary, /CONVERSATION_SUMMARY|#[0-9a-f]{8}/, 'the summary shows its markers or ids')
    assert.deepEqual(await app.evaluate(`${all('compaction-pin')}.map((p) => p.textContent)`), [`You: ${facts[0]}`])
    // the meter follows: less used after
    await app.waitFor(`Number(${sel('context-meter')}.dataset.used) < ${before}`, { what: 'the meter to drop after the compaction' })
    await matrix('71-compaction-card', async () => {
      if (!(await app.exists('compaction-body'))) await app.click('compaction-toggle')
      await app.evaluate(`${sel('event-compaction')}.scrollIntoView({ block: 'start' })`)
    })
  })

  await step('the inspector shows what the model remembers, and the meter’s own number', async () => {
    await send('Who is the caterer again, and when is the headcount due?')
    await waitIdle()
    await app.waitFor(`${all('msg-assistant')}.pop()?.textContent.includes('Alpenkost')`, { what: 'the answer' })
    // the meter after the reply is the inspector's number
    await app.waitFor(`${sel('context-meter')}?.dataset.status && ${sel('context-meter')}.dataset.status !== 'compressing'`, { what: 'the meter' })
    const meter = Number(await app.evaluate(`${sel('context-meter')}.dataset.used`))
    await app.click('context-meter')
    await app.waitForTestId('inspector-memory', { timeoutMs: 10000 })
    assert.equal(Number(await app.evaluate(`${sel('inspector-used')}.dataset.used`)), meter, 'the meter and the inspector disagree')
    await app.waitFor(`Number(${sel('context-meter')}.dataset.used) === ${meter}`, { what: 'the meter unchanged by opening the inspector' })
    assert.match(await app.text('inspector-summary-text'), /4711 EUR/)
    assert.match(await app.text('inspector-summary-text'), /replaces \d+ messages/)
    assert.match(await app.text('inspector-pins'), /You: Plan the team offsite/)
    assert.match(await app.text('inspector-pins'), /quoted word for word/)
    // the caterer reaches the model once: in the summary, which then no
    // recall repeats, or recalled with its reason in words
    const recalls = await app.evaluate(`${all('inspector-recall')}.map((r) => r.textContent)`)
    if (/Alpenkost/.test(await app.text('inspector-summary-text'))) {
      assert.ok(!recalls.some((r) => /Alpenkost/.test(r)), `the summary holds the caterer and a recall repeats it: ${recalls.join(' | ')}`)
    } else {
      assert.ok(
        recalls.some((r) => /Alpenkost/.test(r) && /Recalled because it shares .*“caterer”/.test(r)),
        `the caterer is neither in the summary nor recalled with its reason: ${recalls.join(' | ')}`,
      )
    }
    assert.match(await app.text('inspector-compactions'), /messages · you asked/)
    assert.doesNotMatch(await app.text('inspector-memory'), /CONVERSATION_SUMMARY|key-messages|score \d/)
    await matrix('72-inspector-memory', async () => {
      await app.evaluate(`${sel('inspector-memory')}.scrollIntoView({ block: 'start' })`)
    })
    await app.click('context-inspector-close')
  })

  await step('a long tool result grows in place; no scroll area inside the conversation; Jump to latest sits under the text', async () => {
    for (let i = 0; i < 60; i++) writeFileSync(join(projectRoot, `file-${String(i).padStart(2, '0')}.md`), `# ${i}\n`)
    await send('please list the big folder')
    await waitIdle()
    const card = `${all('tool-card')}.find((c) => c.dataset.tool === 'fs.list')`
    await app.waitFor(`${card}?.dataset.status === 'ok'`, { what: 'the listing' })
    await app.evaluate(`${card}.querySelector('[data-testid="tool-toggle"]').click()`)
    await app.waitFor(`!!${card}.querySelector('[data-testid="tool-more"]')`, { what: 'a long result with Show all' })
    await app.evaluate(`${card}.querySelector('[data-testid="tool-more"]').click()`)
    await sleep(200)
    assert.deepEqual(await nestedScrollers('[data-testid="message-list"]'), [], 'a scroll area inside the conversation')
    // Jump to latest while an answer streams: under the list, never over a message
    await send('a slow answer please')
    await app.waitFor(`${sel('msg-live')}?.textContent.length > 40`, { what: 'the slow answer to start' })
    await app.evaluate(`(() => { const l = ${sel('message-list')}; l.dispatchEvent(new WheelEvent('wheel', { deltaY: -400, bubbles: true })); l.scrollTop = 100; l.dispatchEvent(new Event('scroll')); return true })()`)
    await app.waitForTestId('jump-latest')
    const overlap = await app.evaluate(`(() => { const j = ${sel('jump-latest')}.getBoundingClientRect(); const l = ${sel('message-list')}.getBoundingClientRect(); return { jumpTop: j.top, listBottom: l.bottom } })()`)
    assert.ok(overlap.jumpTop >= overlap.listBottom - 0.5, `Jump to latest covers the messages: ${JSON.stringify(overlap)}`)
    await matrix('73-jump-to-latest', async () => {
      await app.evaluate(`(() => { const l = ${sel('message-list')}; l.scrollTop = 100; l.dispatchEvent(new Event('scroll')); return true })()`)
      await app.waitForTestId('jump-latest')
    })
    await app.xdotool('key', 'Escape')
    await waitIdle('the stop')
  })

  await step('a run: each step one row in words, raw calls one click away; the status said once; no internal names', async () => {
    await app.click('conv-new')
    await app.waitForTestId('chat-empty')
    runConv = await app.evaluate(`${sel('chat-view')}.dataset.conversation`)
    await app.click('mode-run')
    await app.waitFor(`${sel('run-workflow-picker')}?.value === 'write-brief'`, { what: 'the workflow picker' })
    await app.typeInto('composer-input', 'A shared grocery list for flatmates.')
    await app.click('composer-start-run')
    await app.waitFor(`${sel('widget-card')}?.dataset.state === 'pending'`, { timeoutMs: 20000, what: 'the question of the first step' })
    await waitIdle()
    await app.waitFor(`${all('step-row')}.length === 1`, { what: 'the first step as one row' })
    assert.equal(await app.text('step-title'), 'Step 1 · Capture the idea')
    assert.equal(await app.text('step-summary'), "read the run's state, read the step's instructions, wrote idea-notes.md, moved to “Is the idea clear enough?”")
    assert.equal(await app.exists('tool-card'), false, 'tool cards outside the step row')
    // status once; the question once
    assert.equal(await app.evaluate(`document.body.innerText.match(/waiting for you/gi)?.length ?? 0`), 1, 'the status said more than once')
    assert.equal(await app.evaluate(`document.body.innerText.split('Which format should the brief have?').length - 1`), 1, 'the question is repeated')
    assert.doesNotMatch(await app.evaluate(`${sel('chat-view')}.innerText`), leaks)
    // the raw calls, one click away
    await app.click('step-toggle')
    await app.waitFor(`${all('tool-card')}.map((c) => c.dataset.tool).join() === 'fs.read,fs.read,fs.write,fs.apply_patch'`, { what: 'the four calls of the step' })
    assert.deepEqual(await app.evaluate(`${all('tool-words')}.map((w) => w.textContent)`), [
      "Read the run's state",
      "Read the step's instructions (55 lines)",
      'Created artifacts/idea-notes.md (+8 −0)',
      'Moved to “Is the idea clear enough?”',
    ])
    await app.screenshot('74-run-step-open')
    await app.click('step-toggle')
    // answer: the run goes on to its end
    await app.evaluate(`${all('widget-option')}.find((o) => o.dataset.value === 'One page').querySelector('input').click()`)
    await app.click('widget-submit')
    await app.waitFor(`${sel('run-bar-phase')}?.dataset.phase === 'completed'`, { timeoutMs: 20000, what: 'the run to complete' })
    await waitIdle()
    await app.waitFor(`${all('step-row')}.length === 4`, { what: 'four steps' })
    const steps = await app.evaluate(`${all('step-row')}.map((r) => r.querySelector('[data-testid="step-title"]').textContent + ' — ' + r.querySelector('[data-testid="step-summary"]').textContent)`)
    assert.deepEqual(steps, [
      "Step 1 · Capture the idea — read the run's state, read the step's instructions, wrote idea-notes.md, moved to “Is the idea clear enough?”",
      'Step 2 · Is the idea clear enough? — decided: clear enough, moved to “Draft the brief”',
      'Step 3 · Draft the brief — read brief-template.md, tried: read missing.md (failed), wrote project-brief.md, moved to “Wrap up”',
      'Step 4 · Wrap up — finished the run',
    ])
    assert.doesNotMatch(await app.evaluate(`${sel('chat-view')}.innerText`), leaks)
    await app.waitFor(`${all('msg-assistant')}.some((m) => m.textContent.includes('The one-page brief is in'))`, { what: 'the closing words' })
    await matrix('74-run-steps', async () => {
      await app.evaluate(`${all('step-row')}[1].scrollIntoView({ block: 'start' })`)
    })
  })

  await step('the run panel in words, without a scroll area of its own; Markdown artifacts', async () => {
    await app.resize(1440, 900)
    await app.waitFor(`${sel('run-panel')}?.dataset.open === 'true' && ${sel('run-panel')}.dataset.mode === 'docked'`, { what: 'the docked panel' })
    assert.doesNotMatch(await app.text('run-panel'), leaks)
    await app.evaluate(`${sel('run-log')}.closest('details').open = true`)
    await app.waitFor(`${all('run-log-line')}.some((l) => l.dataset.type === 'turn_end')`, { what: 'the activity' })
    const activity = await app.evaluate(`${all('run-log-line')}.map((l) => l.textContent)`)
    assert.ok(activity.some((l) => /Wrote project-brief\.md/.test(l)), `no words for the write: ${activity.join(' | ')}`)
    assert.ok(activity.some((l) => /Tried: read missing\.md \(failed\)/.test(l)), 'no words for the failed read')
    assert.doesNotMatch(activity.join('\n'), leaks)
    assert.deepEqual(await nestedScrollers('[data-testid="run-panel"] .run-panel-body'), [], 'a scroll area inside the run panel')
    await matrix('75-run-activity', async (size) => {
      if (size.name === 'narrow') {
        if ((await app.evaluate(`${sel('run-panel')}.dataset.open`)) !== 'true') await app.click('run-panel-expand')
      }
      await app.waitFor(`${sel('run-panel')}?.dataset.open === 'true'`, { what: 'the panel open' })
      await app.evaluate(`(() => { const d = ${sel('run-log')}.closest('details'); d.open = true; d.scrollIntoView({ block: 'start' }); return true })()`)
    })
    // the brief, formatted
    await app.waitFor(`${all('run-artifact')}.length === 2`, { what: 'both files' })
    await app.evaluate(`${all('run-artifact')}.find((a) => a.dataset.path === 'artifacts/project-brief.md').click()`)
    await app.waitFor(`${sel('artifact-content')}?.dataset.format === 'markdown'`, { what: 'the brief as Markdown' })
    const md = await app.evaluate(`(() => { const el = ${sel('artifact-content')}; return { h1: el.querySelector('h1')?.textContent, strong: el.querySelector('strong')?.textContent, li: el.querySelectorAll('li').length, raw: el.textContent.includes('##') } })()`)
    assert.deepEqual(md, { h1: 'Project brief: Shared grocery list', strong: 'duplicates', li: 2, raw: false })
    await matrix('76-artifact-markdown', async () => {
      if (!(await app.exists('artifact-viewer'))) await app.evaluate(`${all('run-artifact')}.find((a) => a.dataset.path === 'artifacts/project-brief.md').click()`)
      await app.waitForTestId('artifact-content')
    })
    await app.click('artifact-viewer-close')
  })

  await step('narrow windows: the run panel folds over the conversation; the composer keeps its width', async () => {
    const widths = {}
    for (const w of [900, 1100, 1440]) {
      await app.resize(w, w === 1440 ? 900 : 650)
      await sleep(150)
      const m = await app.evaluate(`(() => { const p = ${sel('run-panel')}; const c = ${sel('composer-input')}.getBoundingClientRect(); const l = ${sel('message-list')}.getBoundingClientRect();
        return { mode: p.dataset.mode, open: p.dataset.open, composer: Math.round(c.width), list: Math.round(l.width) } })()`)
      widths[w] = m
    }
    console.log(`    composer widths: ${Object.entries(widths).map(([w, m]) => `${w}px window: ${m.composer}px (panel ${m.mode}, ${m.open === 'true' ? 'open' : 'folded'})`).join('; ')}`)
    assert.deepEqual([widths[900].mode, widths[900].open], ['overlay', 'false'])
    assert.deepEqual([widths[1100].mode, widths[1100].open], ['overlay', 'false'])
    assert.deepEqual([widths[1440].mode, widths[1440].open], ['docked', 'true'])
    assert.ok(widths[900].composer >= 420, `the composer at 900 px: ${widths[900].composer}px`)
    // the composer spans the 720 px reading column, its controls (approval
    // mode, Send) beside the input
    assert.ok(widths[1100].composer >= 540, `the composer at 1100 px: ${widths[1100].composer}px`)
    assert.ok(widths[1440].composer >= 540, `the composer at 1440 px: ${widths[1440].composer}px`)
    // opened in a narrow window, the panel lies over the conversation: the composer does not move
    await app.resize(900, 650)
    await app.click('run-panel-expand')
    await app.waitFor(`${sel('run-panel')}?.dataset.open === 'true'`, { what: 'the panel over the conversation' })
    const over = await app.evaluate(`(() => { const c = ${sel('composer-input')}.getBoundingClientRect(); const p = ${sel('run-panel')}; return { composer: Math.round(c.width), position: getComputedStyle(p).position } })()`)
    assert.equal(over.position, 'absolute')
    assert.ok(over.composer >= widths[900].composer - 40, `the composer shrank to ${over.composer}px when the panel opened`)
    for (const theme of ['light', 'dark']) {
      await app.evaluate(`document.documentElement.dataset.theme = ${JSON.stringify(theme)}`)
      await app.screenshot(`77-narrow-panel-over-narrow-${theme}`)
    }
    // Escape folds it away again
    await app.press(null, 'Escape')
    await app.waitFor(`${sel('run-panel')}?.dataset.open === 'false'`, { what: 'the panel folded by Escape' })
    for (const theme of ['light', 'dark']) {
      await app.evaluate(`document.documentElement.dataset.theme = ${JSON.stringify(theme)}`)
      await app.screenshot(`77-narrow-panel-folded-narrow-${theme}`)
    }
    await app.resize(1100, 650)
    await app.evaluate(`document.documentElement.dataset.theme = 'light'`)
    await app.screenshot('77-run-1100-light')
    await app.resize(1280, 800)
  })

  await step('no content security policy violations', async () => {
    assert.deepEqual(await app.evaluate('window.__cspViolations'), [])
  })
}
