// Conversations the model creates (conv.create) in the real window, against
// the fake OpenAI server: the parent's turn goes to the child, the child
// answers, the parent goes on with that answer; the sidebar shows the child
// under its parent (and who is answering), the parent's card shows the child
// and its answer and opens it, the child links back; a parent waiting for a
// slow child says so, and Stop there ends all of it. Shot at 900x650 and
// 1440x900 in both themes.
import assert from 'node:assert/strict'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startFakeLLM } from '../lib/fakellm.mjs'

export const timeoutMs = 300000

const hotels = 'Three hotels by the river: **Hotel Bellecour** (2 km from the old town), **Hotel Fourvière** (1 km) and **Hotel Part-Dieu** (3 km).'

export async function setup({ tmp, repo }) {
  const rules = [
    {
      match: 'plan a weekend',
      on_tool_result: true,
      response: { text: 'Here is the plan: stay at Hotel Fourvière, the closest to the old town, and walk along the Saône on Saturday.' },
    },
    {
      match: 'plan a weekend',
      response: {
        text: 'I will ask a helper to find hotels first.',
        tool_calls: [{ name: 'conv.create', arguments: JSON.stringify({ user_instruction: 'Find three hotels in Lyon near the river', title: 'Hotels in Lyon' }) }],
      },
    },
    { match: 'find three hotels', response: { text: hotels, chunks: 12, chunk_delay_ms: 80 } },
    {
      match: 'delegate a slow job',
      response: { tool_calls: [{ name: 'conv.create', arguments: JSON.stringify({ user_instruction: 'Compare every train to Paris this month', title: 'Trains to Paris' }) }] },
    },
    { match: 'compare every train', response: { text: 'Looking at the timetables, one day after another…', chunks: 6, stall_after: 3, stall_ms: -1 } },
    { match: 'continue', response: { text: 'Going on without the train comparison.' } },
    { match: '*', response: { text: 'You said: ', echo: true } },
  ]
  const llm = await startFakeLLM({ binary: join(repo, 'build/bin/fakellm'), rules, dir: tmp })
  return {
    llm,
    env: { CREWAGENT_LLM_BASE_URL: llm.url, CREWAGENT_LLM_MODEL: 'gpt-4o-mini' },
    cleanup: () => llm.stop(),
  }
}

const sel = (id) => `document.querySelector('[data-testid="${id}"]')`
const all = (id) => `[...document.querySelectorAll('[data-testid="${id}"]')]`
/** The sidebar as "depth:title:status" rows. */
const sidebarRows = `${all('conv-item')}.map((el) => el.dataset.depth + ':' + el.querySelector('[data-testid="conv-title"]').textContent + ':' + (el.dataset.status ?? ''))`

export default async function subconversations({ app, step, tmp, home, prepared }) {
  const workdir = join(tmp, 'work')
  mkdirSync(workdir, { recursive: true })
  let dataDir

  const matrix = (name, prepare) => app.screenshots(name, prepare)
  const send = async (text) => {
    await app.typeInto('composer-input', text)
    await app.press('composer-input', 'Enter')
  }
  const openByTitle = async (title) => {
    await app.evaluate(`${all('conv-item')}.find((el) => el.querySelector('[data-testid="conv-title"]').textContent === ${JSON.stringify(title)}).querySelector('[data-testid="conv-open"]').click()`)
    await app.waitFor(`${sel('chat-title')}?.textContent === ${JSON.stringify(title)}`, { what: `the conversation "${title}" open` })
  }

  await step('a project', async () => {
    await app.waitForTestId('start-screen')
    await app.click('new-project-button')
    await app.typeInto('new-project-name-input', 'trips')
    await app.typeInto('new-project-parent-input', workdir)
    await app.click('new-project-submit')
    await app.waitForTestId('workspace-screen')
    const meta = JSON.parse(readFileSync(join(workdir, 'trips', '.crewagent.json'), 'utf8'))
    dataDir = join(home, 'projects', meta.projectId)
  })

  await step('the model creates a conversation: it answers, then the parent goes on with its answer', async () => {
    await app.click('conv-new')
    await app.waitForTestId('composer-input')
    await send('Plan a weekend in Lyon for two')
    // The child appears under its parent while it answers.
    await app.waitFor(`${sidebarRows}.some((r) => r.startsWith('1:Hotels in Lyon'))`, { timeoutMs: 20000, what: 'the child in the sidebar' })
    await app.waitFor(`${all('msg-assistant')}.some((el) => el.textContent.includes('stay at Hotel Fourvière'))`, { timeoutMs: 30000, what: "the parent's continuation" })
    await app.waitFor(`${sel('chat-view')}?.dataset.streaming === 'false'`, { timeoutMs: 20000, what: 'the end of the work' })
    // the list follows the tasks' events: the parent stops waiting a moment after the work ends
    const want = ['0:Plan a weekend in Lyon for two:', '1:Hotels in Lyon:']
    await app.waitFor(`JSON.stringify(${sidebarRows}) === ${JSON.stringify(JSON.stringify(want))}`, { timeoutMs: 5000, what: 'the parent no longer waiting in the list' }).catch(() => {})
    const rows = await app.evaluate(sidebarRows)
    assert.deepEqual(rows, want)
    await app.waitFor(`${sel('handover')}?.dataset.status === 'completed'`, { what: 'the card of the created conversation, answered' })
    const card = await app.evaluate(`${sel('handover')}.textContent`)
    assert.match(card, /New conversation/)
    assert.match(card, /Hotels in Lyon/)
    assert.match(card, /answered/)
    assert.match(card, /Hotel Bellecour/)
    // The child's record says where it comes from.
    const index = JSON.parse(readFileSync(join(dataDir, 'conversations', 'index.json'), 'utf8'))
    const records = Array.isArray(index) ? index : (index.conversations ?? Object.values(index))
    const child = records.find((r) => r.title === 'Hotels in Lyon')
    const parent = records.find((r) => r.title !== 'Hotels in Lyon')
    assert.ok(child?.origin?.toolCallId, 'the child has its origin')
    assert.equal(child.parentId, parent.id)
    assert.equal(child.origin.conversationId, parent.id)
    await matrix('70-subconversation-answered', async () => {
      await app.evaluate(`${sel('handover')}.scrollIntoView({ block: 'center' })`)
    })
  })

  await step('the card opens the child, which links back', async () => {
    await app.click('handover-open')
    await app.waitFor(`${sel('chat-title')}?.textContent === 'Hotels in Lyon'`, { what: 'the child open' })
    await app.waitFor(`${sel('chat-origin')}?.textContent.includes('Plan a weekend in Lyon for two')`, { what: 'the link back' })
    await app.waitFor(`${all('msg-assistant')}.some((el) => el.textContent.includes('Hotel Part-Dieu'))`, { what: "the child's answer" })
    await matrix('71-subconversation-child')
    await app.click('chat-origin')
    await app.waitFor(`${sel('chat-title')}?.textContent === 'Plan a weekend in Lyon for two'`, { what: 'back in the parent' })
  })

  await step('the tree folds', async () => {
    await app.evaluate(`${all('conv-item')}[0].querySelector('[data-testid="conv-twisty"]').click()`)
    await app.waitFor(`${sidebarRows}.length === 1`, { what: 'the child hidden' })
    assert.match(await app.evaluate(`${all('conv-item')}[0].textContent`), /1 sub-conversation/)
    await app.evaluate(`${all('conv-item')}[0].querySelector('[data-testid="conv-twisty"]').click()`)
    await app.waitFor(`${sidebarRows}.length === 2`, { what: 'the child shown again' })
  })

  await step('a parent waits for a slow child, says so, and Stop there ends all of it', async () => {
    await app.click('conv-new')
    await app.waitFor(`${sel('chat-title')}?.textContent === 'New conversation'`, { what: 'a new conversation' })
    await send('Delegate a slow job')
    await app.waitForTestId('waiting-bar', { timeoutMs: 20000 })
    await app.waitFor(`${sidebarRows}.some((r) => r === '1:Trains to Paris:answering')`, { timeoutMs: 20000, what: 'the child answering in the sidebar' })
    await app.waitFor(`${sel('waiting-bar')}.textContent.includes('to answer')`, { what: 'the waiting bar' })
    assert.match(await app.evaluate(`${sel('composer-input')}.placeholder`), /Waiting for “Trains to Paris”/)
    assert.ok(await app.exists('composer-stop'), 'Stop is offered in the waiting conversation')
    await matrix('72-subconversation-waiting')
    // The child streams in its own conversation.
    await app.click('waiting-open')
    await app.waitFor(`${sel('chat-title')}?.textContent === 'Trains to Paris'`, { what: 'the child open' })
    await app.waitFor(`${sel('chat-view')}?.dataset.streaming === 'true'`, { what: 'the child streaming' })
    await app.screenshot('73-subconversation-child-streaming')
    await openByTitle('Delegate a slow job')
    await app.click('waiting-stop')
    await app.waitFor(`${sel('handover')}?.dataset.status === 'stopped'`, { timeoutMs: 20000, what: 'the call closed as stopped' })
    await app.waitFor(`!${sel('waiting-bar')}`, { what: 'the waiting bar gone' })
    await app.waitFor(`${sidebarRows}.every((r) => !r.endsWith(':answering'))`, { what: 'nobody answering' })
    assert.match(await app.evaluate(`${sel('handover')}.textContent`), /stopped/)
    await app.waitForTestId('msg-stopped-end')
    assert.equal(await app.exists('msg-unfinished'), false, 'a stop is not a crash')
    await matrix('74-subconversation-stopped')
    await openByTitle('Trains to Paris')
    await app.waitForTestId('msg-stopped')
    const requests = await prepared.llm.requests()
    const continuations = requests.filter((r) => (r.messages ?? []).some((m) => m.content === 'Delegate a slow job') && r.messages.at(-1).role === 'tool')
    assert.equal(continuations.length, 0, 'no continuation ran after Stop')
  })

  await step('the stopped conversation goes on when the user says so', async () => {
    await openByTitle('Delegate a slow job')
    await app.click('stopped-end-continue')
    await app.waitFor(`${all('msg-assistant')}.some((el) => el.textContent.includes('Going on without the train comparison'))`, { timeoutMs: 20000, what: 'the continued reply' })
  })
}
