// Skills in the real window, against the fake OpenAI server: skills placed
// in the project folder (and a user's Claude Code folder) are found; the
// user activates one with /skill NAME and one from the picker; the model
// activates one with skill.activate and reads its supporting file through
// @skill/…; each activation is a compact "Skill activated" row that expands
// to the instructions; the active skills are chips that deactivate them;
// an unknown skill is refused in words; a skill added on disk shows up;
// Settings → Skills lists every skill with its source and problems; the
// context inspector marks the bodies as pinned. Screens at 900x650 and
// 1440x900 in both themes.
import assert from 'node:assert/strict'
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startFakeLLM } from '../lib/fakellm.mjs'

export const timeoutMs = 300000

const skill = (dir, name, frontmatter, body, files = {}) => {
  const d = join(dir, name)
  mkdirSync(d, { recursive: true })
  writeFileSync(join(d, 'SKILL.md'), `---\n${frontmatter}\n---\n\n${body}\n`)
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(join(d, f, '..'), { recursive: true })
    writeFileSync(join(d, f), text)
  }
}

export async function setup({ tmp, repo, home }) {
  // The project, with its skills, before the app starts.
  const root = join(tmp, 'work', 'launch-deck')
  const projectSkills = join(root, '.crewagent', 'skills')
  skill(
    projectSkills,
    'deck-style',
    'name: deck-style\ndescription: House style for slide decks — one idea per slide, titles under eight words.',
    '# Deck style\n\nDECK-STYLE-RULES\n\n- One idea per slide.\n- Titles under **eight words**.\n- Put the source of every figure in the footer.',
  )
  skill(
    projectSkills,
    'changelog',
    'name: changelog\ndescription: Write release notes and changelog entries from a list of changes.',
    '# Changelog\n\nCHANGELOG-RULES: group the changes by kind (Added, Changed, Fixed) and start from the template in template.md.',
    { 'template.md': '## [version] — date\n### Added\n### Changed\n### Fixed\n' },
  )
  skill(projectSkills, 'broken-skill', 'name: broken-skill\ndescription: [not closed', 'Never used.')
  // A user's Claude Code skill, read-only review.
  const userHome = join(tmp, 'userhome')
  skill(join(userHome, '.claude', 'skills'), 'code-review', 'name: code-review\ndescription: Review code without changing it.\nallowed-tools: Read, Grep', 'Read the files and report; never edit.')
  // The runtime home's own skills: an older deck-style the project's hides,
  // and one only the user may activate.
  skill(join(home, 'skills'), 'deck-style', 'name: deck-style\ndescription: An older deck style.', 'Old rules.')
  skill(join(home, 'skills'), 'release-checklist', 'name: release-checklist\ndescription: The steps before a release.\ndisable-model-invocation: true', '1. Tag.\n2. Build.\n3. Announce.')

  const rules = [
    { match: 'release notes', times: 1, response: { tool_calls: [{ name: 'skill.activate', arguments: '{"name":"changelog"}' }] } },
    { match: 'CHANGELOG-RULES', times: 1, response: { tool_calls: [{ name: 'fs.read', arguments: '{"path":"@skill/changelog/template.md"}' }] } },
    { match: 'CHANGELOG-RULES', on_tool_result: true, response: { text: 'Release notes drafted from the template: **Added**, **Changed**, **Fixed**.' } },
    { match: 'outline', response: { text: 'Outline, one idea per slide:\n\n1. Why now\n2. What ships\n3. What it costs' } },
    { match: '*', on_tool_result: true, response: { text: 'Done.' } },
    { match: '*', response: { text: 'Noted.' } },
  ]
  const llm = await startFakeLLM({ binary: join(repo, 'build/bin/fakellm'), rules, dir: tmp })
  return {
    llm,
    root,
    env: { CREWAGENT_LLM_BASE_URL: llm.url, CREWAGENT_LLM_MODEL: 'gpt-4o-mini', HOME: userHome, CODEX_HOME: '' },
    cleanup: () => llm.stop(),
  }
}

const sel = (id) => `document.querySelector('[data-testid="${id}"]')`
const all = (id) => `[...document.querySelectorAll('[data-testid="${id}"]')]`

export default async function skills({ app, step, home, prepared }) {
  const { llm, root } = prepared
  let dataDir, conv
  const send = async (text) => {
    await app.typeInto('composer-input', text)
    await app.press('composer-input', 'Enter')
  }
  const waitIdle = (what) => app.waitFor(`${sel('chat-view')}?.dataset.streaming === 'false'`, { timeoutMs: 20000, what: what ?? 'the reply to end' })
  const chips = () => app.evaluate(`${all('skill-chip')}.map((c) => c.dataset.skill).join()`)
  const log = () =>
    readFileSync(join(dataDir, 'conversations', conv, 'messages.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))

  const matrix = (name, prepare) => app.screenshots(name, prepare, { settleMs: 150 })

  await step('open the project that holds skills', async () => {
    await app.waitForTestId('start-screen')
    await app.typeInto('open-path-input', root)
    await app.click('open-path-submit')
    await app.waitForTestId('workspace-screen')
    const meta = JSON.parse(readFileSync(join(root, '.crewagent.json'), 'utf8'))
    dataDir = join(home, 'projects', meta.projectId)
    await app.click('conv-new')
    await app.waitForTestId('chat-view')
    conv = await app.evaluate(`${sel('chat-view')}.dataset.conversation`)
    await app.waitForTestId('skill-picker-button', { timeoutMs: 10000 })
  })

  await step('/skill NAME activates a skill for the user: a chip and a compact row, no message sent', async () => {
    await send('/skill deck-style')
    await app.waitFor(`${sel('skill-chip')}?.dataset.skill === 'deck-style'`, { what: 'the deck-style chip' })
    await app.waitFor(`${sel('msg-skill')}?.dataset.skill === 'deck-style'`, { what: 'the skill row' })
    assert.equal(await app.evaluate(`${sel('composer-input')}.value`), '')
    assert.match(await app.text('msg-skill'), /Skill activated: deck-style/)
    assert.equal(await app.exists('msg-user'), false, 'the command became a message')
    assert.equal((await llm.requests()).length, 0, 'the command reached the model')
    const entries = log()
    assert.deepEqual(
      entries.map((e) => (e.type === 'evt' ? e.event : e.is_meta ? 'meta' : e.role)),
      ['skill_activated', 'meta'],
    )
    assert.equal(entries[0].data.skill, 'deck-style')
    assert.equal(entries[0].data.source, 'project')
    assert.equal(entries[0].data.path, join(root, '.crewagent', 'skills', 'deck-style', 'SKILL.md'))
    assert.equal(entries[0].ref_msg_id, entries[1].id)
  })

  await step('the next request carries the skill body; the row expands to it', async () => {
    await send('outline the launch deck')
    await waitIdle()
    await app.waitFor(`${all('msg-assistant')}.length === 1`, { what: 'the answer' })
    const reqs = await llm.requests()
    const chat = reqs.filter((r) => r.messages)
    const last = chat[chat.length - 1]
    const text = last.messages.map((m) => m.content ?? '').join('\n')
    assert.match(text, /DECK-STYLE-RULES/, 'the body is not in the request')
    assert.match(text, /Available skills:[\s\S]*- changelog: Write release notes/, 'the registry is not in the system prompt')
    assert.doesNotMatch(text, /release-checklist/, 'a user-only skill is listed to the model')
    await app.click('skill-row-toggle')
    await app.waitForTestId('skill-row-body')
    assert.match(await app.text('skill-row-body'), /Titles under eight words/)
  })

  await step('the model activates a skill with skill.activate and reads its file through @skill', async () => {
    await send('please write the release notes for 2.1')
    await waitIdle('the model activation')
    await app.waitFor(`${all('msg-skill')}.some((r) => r.dataset.skill === 'changelog')`, { what: 'the changelog row' })
    await app.waitFor(`${all('msg-assistant')}.pop()?.textContent.includes('Release notes drafted from the template')`, { what: 'the final answer' })
    const row = await app.evaluate(`${all('msg-skill')}.find((r) => r.dataset.skill === 'changelog').textContent`)
    assert.match(row, /by the model/)
    await app.waitFor(`${all('skill-chip')}.length === 2`, { what: 'two chips' })
    assert.equal(await chips(), 'deck-style,changelog')
    const entries = log()
    const i = entries.findIndex((e) => e.type === 'evt' && e.event === 'skill_activated' && e.data.skill === 'changelog')
    assert.ok(i > 1, 'no model activation in the log')
    assert.equal(entries[i - 1].role, 'tool', 'the event does not follow the tool result')
    assert.equal(entries[i - 2].tool_calls?.[0]?.function?.name, 'skill.activate')
    assert.equal(entries[i + 1].is_meta, true)
    const read = entries.find((e) => e.role === 'tool' && e.tool_name === 'fs.read')
    assert.match(read.content, /### Fixed/, 'the supporting file was not read through @skill')
    // the request after the activation ended with the body
    const reqs = (await llm.requests()).filter((r) => r.messages)
    const after = reqs.find((r) => (r.messages.at(-1)?.content ?? '').includes('CHANGELOG-RULES'))
    assert.ok(after, 'no request ended with the changelog body')
    assert.equal(after.messages.at(-2).role, 'tool')
  })

  await step('screens: the rows, the expanded instructions and the chips', async () => {
    await matrix('skills-conversation', async () => {
      await app.evaluate(`(() => { const r = ${all('msg-skill')}.find((x) => x.dataset.skill === 'changelog'); if (!r.querySelector('[data-testid="skill-row-body"]')) r.querySelector('[data-testid="skill-row-toggle"]').click(); r.scrollIntoView({ block: 'center' }); return true })()`)
    })
  })

  await step('the picker lists the skills the user may activate; choosing one activates it', async () => {
    await app.click('skill-picker-button')
    await app.waitForTestId('skill-picker')
    const names = await app.evaluate(`${all('skill-option')}.map((o) => o.dataset.skill + ':' + o.getAttribute('aria-checked')).join()`)
    assert.equal(names, 'changelog:true,code-review:false,deck-style:true,release-checklist:false')
    await matrix('skills-picker', async () => {
      if (!(await app.exists('skill-picker'))) await app.click('skill-picker-button')
      await app.waitForTestId('skill-picker')
    })
    await app.evaluate(`${all('skill-option')}.find((o) => o.dataset.skill === 'release-checklist').click()`)
    await app.waitFor(`${all('skill-chip')}.some((c) => c.dataset.skill === 'release-checklist')`, { what: 'the chosen skill as a chip' })
    assert.equal(await app.exists('skill-picker'), false, 'the picker stayed open')
  })

  await step('a chip deactivates its skill: a divider, the row says it ended', async () => {
    await app.evaluate(`${all('skill-chip')}.find((c) => c.dataset.skill === 'deck-style').click()`)
    await app.waitFor(`!${all('skill-chip')}.some((c) => c.dataset.skill === 'deck-style')`, { what: 'the chip to go' })
    await app.waitForTestId('event-skill_deactivated')
    assert.match(await app.text('event-skill_deactivated'), /Skill deactivated: deck-style/)
    await app.waitFor(`${all('msg-skill')}.find((r) => r.dataset.skill === 'deck-style')?.dataset.state === 'ended'`, { what: 'the ended row' })
    const last = log().at(-1)
    assert.equal(last.event, 'skill_deactivated')
    assert.equal(last.data.skill, 'deck-style')
    // and /skill off NAME
    await send('/skill off release-checklist')
    await app.waitFor(`!${all('skill-chip')}.some((c) => c.dataset.skill === 'release-checklist')`, { what: '/skill off' })
    await send('next slide please')
    await waitIdle()
    const reqs = (await llm.requests()).filter((r) => r.messages)
    const text = reqs.at(-1).messages.map((m) => m.content ?? '').join('\n')
    assert.doesNotMatch(text, /DECK-STYLE-RULES/, 'a deactivated body is still sent')
    assert.match(text, /CHANGELOG-RULES/, 'the active body is gone')
  })

  await step('an unknown skill is refused in words; the text stays to be fixed', async () => {
    await send('/skill deck-styel')
    await app.waitFor(`${sel('composer-skills')}?.querySelector('[role="alert"]')?.textContent.includes('there is no skill "deck-styel"')`, { what: 'the refusal' })
    assert.equal(await app.evaluate(`${sel('composer-input')}.value`), '/skill deck-styel')
    await app.screenshot('skills-unknown')
    await app.evaluate(`${sel('composer-skills')}.querySelector('[data-testid="error-dismiss"]').click()`)
    await app.waitFor(`!${sel('composer-skills')}?.querySelector('[role="alert"]')`, { what: 'the refusal dismissed' })
    await app.typeInto('composer-input', '')
  })

  await step('the context inspector marks the skill bodies as pinned', async () => {
    await app.click('context-meter')
    await app.waitForTestId('inspector-body', { timeoutMs: 10000 })
    await app.waitForTestId('inspector-skill-pin')
    assert.match(await app.text('inspector-skill-pin'), /skill changelog/)
    await matrix('skills-inspector', async () => {
      await app.evaluate(`${sel('inspector-skill-pin')}.scrollIntoView({ block: 'center' })`)
    })
    await app.click('context-inspector-close')
  })

  await step('a skill added on disk shows up at once; Settings → Skills lists every one with its problems', async () => {
    skill(join(root, '.crewagent', 'skills'), 'brand-voice', 'name: brand-voice\ndescription: Write in the brand voice.', 'Warm, short sentences.')
    await app.click('open-settings')
    await app.click('settings-tab-skills')
    await app.waitForTestId('skills-panel')
    await app.waitFor(`${all('skill-card')}.some((c) => c.dataset.skill === 'brand-voice')`, { timeoutMs: 10000, what: 'the skill added on disk' })
    assert.equal(await app.evaluate(`!!${sel('skills-panel')}.querySelector('[role="alert"]')`), false, 'the panel shows an error')
    const cards = await app.evaluate(`${all('skill-card')}.map((c) => c.dataset.skill + ':' + c.dataset.status).join()`)
    assert.equal(cards, 'brand-voice:available,broken-skill:invalid,changelog:available,code-review:available,deck-style:available,deck-style:shadowed,release-checklist:available')
    const shadowed = await app.evaluate(`${all('skill-card')}.find((c) => c.dataset.status === 'shadowed').textContent`)
    assert.match(shadowed, /hidden by .*launch-deck\/\.crewagent\/skills\/deck-style\/SKILL\.md/)
    const broken = await app.evaluate(`${all('skill-card')}.find((c) => c.dataset.skill === 'broken-skill').textContent`)
    assert.match(broken, /error/)
    assert.match(broken, /SKILL\.md/)
    const review = await app.evaluate(`${all('skill-card')}.find((c) => c.dataset.skill === 'code-review').textContent`)
    assert.match(review, /claude-user/)
    assert.match(review, /tools: Read file, Search files/)
    await matrix('skills-settings', async () => {
      await app.evaluate(`${all('skill-card')}.find((c) => c.dataset.status === 'shadowed').scrollIntoView({ block: 'center' })`)
    })
  })
}
