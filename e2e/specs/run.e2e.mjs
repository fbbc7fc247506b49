// Packages and workflow runs in the real window against the fake OpenAI
// server, scripted to follow the demo workflow's protocol: the bundled demo
// package is installed at start and bound to a new project; Agent mode with
// its agents; a write-brief run started from Run mode whose side panel
// follows the nodes (fs.read of the state, an artifact written, the state
// patched from node to node); an inline selection widget answered; the run
// completed with its artifacts listed and opened; the context inspector in
// Run mode; talking on after completion, where a state change needs a
// confirmation; the answers read back after a reload; and package imports
// (a broken file through the native dialog with its report, a valid one by
// typed path).
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { startFakeLLM } from '../lib/fakellm.mjs'
import { writeZip } from '../lib/zip.mjs'

const ideaNotes = '## Idea\nA shared grocery list so roommates stop buying duplicates.\n\n## Audience\nPeople who share a flat.\n\n## Problem\nThey buy the same things twice.\n'
const brief = '# Project brief: Shared grocery list\n\n## Problem\nRoommates buy duplicates.\n\n## Solution\nOne list everybody edits.\n'

const call = (name, args, extra = {}) => ({ tool_calls: [{ name, arguments: JSON.stringify(args) }], ...extra })
const patch = (update, extra = {}) => call('fs.apply_patch', { path: '@state/workflow.md', operation: 'updateFrontmatter', update }, extra)

export async function setup({ tmp, repo, home }) {
  // Each turn is matched by the user's input of that turn (the last user
  // message of every request in the turn); the tool-result rules of a turn
  // answer once each, in order.
  const turn1 = 'grocery list'
  const turn2 = 'which format should the brief have'
  const turn3 = 'mark the idea as unclear'
  const turn4 = 'change the finished run'
  const rules = [
    // turn 1: capture-idea, then the decision's question
    { match: turn1, times: 1, response: call('fs.read', { path: '@state/workflow.md' }) },
    { match: turn1, on_tool_result: true, times: 1, response: call('fs.read', { path: '@pkg/workflows/write-brief/steps/capture-idea.md' }) },
    { match: turn1, on_tool_result: true, times: 1, response: call('fs.write', { path: '@project/artifacts/idea-notes.md', content: ideaNotes }) },
    {
      match: turn1,
      on_tool_result: true,
      times: 1,
      response: patch({
        stepsCompleted: { append: ['capture-idea'] },
        currentNodeId: { set: 'check-clarity' },
        variables: { merge: { ideaSummary: 'A shared grocery list for roommates.', ideaClear: true } },
      }),
    },
    {
      match: turn1,
      on_tool_result: true,
      times: 1,
      // a pause, so that the panel can be seen mid-run
      response: { delay_ms: 1500, ...call('ui.ask_user', { type: 'selection', prompt: 'Which format should the brief have?', options: ['One page', 'Bullet summary'] }) },
    },
    // turn 2: the answer; the decision, the draft, the end
    {
      match: turn2,
      times: 1,
      response: patch({
        stepsCompleted: { append: ['check-clarity'] },
        currentNodeId: { set: 'draft-brief' },
        decisionLog: { append: [{ from: 'check-clarity', to: 'draft-brief', label: 'clear enough', reason: 'Idea, audience and problem are known.' }] },
      }),
    },
    { match: turn2, on_tool_result: true, times: 1, response: { delay_ms: 800, ...call('fs.read', { path: '@pkg/assets/brief-template.md' }) } },
    { match: turn2, on_tool_result: true, times: 1, response: call('fs.write', { path: '@project/artifacts/project-brief.md', content: brief }) },
    { match: turn2, on_tool_result: true, times: 1, response: patch({ stepsCompleted: { append: ['draft-brief'] }, currentNodeId: { set: 'end' } }) },
    { match: turn2, on_tool_result: true, times: 1, response: patch({ stepsCompleted: { append: ['end'] }, variables: { merge: { workflowStatus: 'complete' } } }) },
    { match: turn2, on_tool_result: true, times: 1, response: { text: 'Done! The one-page brief is in **artifacts/project-brief.md**.', chunks: 6 } },
    // turn 3 (after completion): a state change is asked for first
    { match: turn3, times: 1, response: call('ui.ask_user', { type: 'confirmation', prompt: 'Change the finished run: mark the idea as not clear enough?' }) },
    // turn 4: the confirmation allows one write
    { match: turn4, times: 1, response: patch({ variables: { merge: { ideaClear: false } } }) },
    { match: turn4, on_tool_result: true, times: 1, response: { text: 'Updated: the state now says the idea is unclear.' } },
    // Agent mode
    { match: 'introduce yourself', response: { text: 'I am Mara, the product analyst.' } },
    { match: '*', on_tool_result: true, response: { text: 'Tool done.' } },
    { match: '*', response: { text: 'You said: ', echo: true } },
  ]
  const llm = await startFakeLLM({ binary: join(repo, 'build/bin/fakellm'), rules, dir: tmp })
  writeFileSync(join(home, 'settings.json'), JSON.stringify({ llm: { maxRetries: 0 } }, null, 2), { mode: 0o600 })
  return {
    llm,
    env: { CREWAGENT_LLM_BASE_URL: llm.url, CREWAGENT_LLM_MODEL: 'gpt-4o-mini' },
    cleanup: () => llm.stop(),
  }
}

const sel = (id) => `document.querySelector('[data-testid="${id}"]')`
const all = (id) => `[...document.querySelectorAll('[data-testid="${id}"]')]`
const nodeStates = `${all('run-node')}.map((n) => n.dataset.node + '=' + n.dataset.status).join(' ')`

/** Every file under dir, as a map of slash-separated relative paths to contents. */
function readTree(dir) {
  const out = {}
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name)
      if (statSync(p).isDirectory()) walk(p)
      else out[relative(dir, p).split('\\').join('/')] = readFileSync(p)
    }
  }
  walk(dir)
  return out
}

export default async function run({ app, step, tmp, repo, home, prepared }) {
  const workdir = join(tmp, 'work')
  mkdirSync(workdir, { recursive: true })
  let projectRoot, dataDir, runConv
  const waitIdle = (what) => app.waitFor(`${sel('chat-view')}?.dataset.streaming === 'false'`, { timeoutMs: 20000, what: what ?? 'the turn to end' })
  // The run's phase is said once, in the run bar above the conversation.
  const panelPhase = (phase, opts = {}) => app.waitFor(`${sel('run-bar-phase')}?.dataset.phase === ${JSON.stringify(phase)}`, { timeoutMs: 20000, what: `the run phase ${phase}`, ...opts })

  await step('the demo package is installed at start and bound to a new project', async () => {
    await app.waitForTestId('start-screen')
    await app.evaluate(`(() => { window.__cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI)); return true })()`)
    await app.click('new-project-button')
    await app.typeInto('new-project-name-input', 'briefs')
    await app.typeInto('new-project-parent-input', workdir)
    await app.click('new-project-submit')
    await app.waitForTestId('workspace-screen')
    projectRoot = join(workdir, 'briefs')
    const meta = JSON.parse(readFileSync(join(projectRoot, '.crewagent.json'), 'utf8'))
    dataDir = join(home, 'projects', meta.projectId)
    assert.equal(meta.activePackageId, 'crewagent-demo@1.0.0')
    const registry = JSON.parse(readFileSync(join(home, 'packages.json'), 'utf8'))
    assert.deepEqual(
      registry.packages.map((p) => p.name),
      ['crewagent-demo'],
    )
    await app.waitFor(`${sel('workspace-package')}?.textContent.includes('crewagent-demo 1.0.0')`, { what: 'the package in the top bar' })
    assert.equal(await app.exists('status-bar'), false, 'a status bar without a run')
    await app.screenshot('40-workspace-with-demo-package')
  })

  await step('Settings → Packages lists the demo with its workflows and agents', async () => {
    await app.click('workspace-package')
    await app.waitFor(`${all('pkg-item')}.length === 1`, { what: 'the package list' })
    const item = await app.evaluate(`(() => { const el = ${sel('pkg-item')}; return { active: el.dataset.active, text: el.textContent } })()`)
    assert.equal(item.active, 'true')
    assert.match(item.text, /crewagent-demo/)
    assert.match(item.text, /Write a project brief/)
    assert.match(item.text, /Mara \(Product Analyst\)/)
    assert.match(item.text, /Theo \(Brief Writer\)/)
    await app.screenshot('41-packages')
    await app.click('settings-screen-close')
  })

  await step('Agent mode works with the demo package’s agents', async () => {
    await app.click('conv-new')
    await app.waitForTestId('chat-empty')
    await app.click('mode-agent')
    await app.waitFor(`[...(${sel('agent-picker')}?.options ?? [])].map((o) => o.value).join() === 'analyst,writer'`, { what: 'the analyst and the writer in the agent picker' })
    await app.typeInto('composer-input', 'Please introduce yourself')
    await app.press('composer-input', 'Enter')
    await waitIdle()
    await app.waitFor(`${all('msg-assistant')}.some((el) => el.textContent.includes('I am Mara'))`, { what: 'the agent answer' })
    const reqs = await prepared.llm.requests()
    const last = reqs.at(-1)
    const system = last.messages.filter((m) => m.role === 'system').map((m) => JSON.stringify(m.content)).join('\n')
    assert.match(system, /Mara/, 'the analyst persona is not in the system prompt')
  })

  await step('start the write-brief run from Run mode; the panel follows the nodes', async () => {
    await app.click('conv-new')
    await app.waitForTestId('chat-empty')
    runConv = await app.evaluate(`${sel('chat-view')}.dataset.conversation`)
    await app.click('mode-run')
    await app.waitFor(`${sel('run-workflow-picker')}?.value === 'write-brief'`, { what: 'the workflow picker on write-brief' })
    assert.deepEqual(await app.evaluate(`[...${sel('run-agent-picker')}.options].map((o) => o.value)`), ['', 'analyst', 'writer'])
    assert.equal(await app.exists('run-panel'), false, 'a run panel before any run')
    await app.typeInto('composer-input', 'A shared grocery list so my roommates stop buying duplicates.')
    await app.screenshot('42-run-mode-start')
    await app.click('composer-start-run')
    await app.waitForTestId('run-panel')
    // mid-turn: the first step is done and the decision is current
    await app.waitFor(`${nodeStates} === 'capture-idea=completed check-clarity=current clarify-idea=pending draft-brief=pending end=pending'`, {
      timeoutMs: 15000,
      what: 'capture-idea completed, check-clarity current',
    })
    assert.equal(await app.evaluate(`${sel('run-bar-phase')}.dataset.phase`), 'running')
    assert.equal(await app.evaluate(`${sel('chat-view')}.dataset.streaming`), 'true')
    await app.waitFor(`${all('run-artifact')}.map((a) => a.dataset.path).join() === 'artifacts/idea-notes.md'`, { what: 'the first artifact in the panel' })
    await app.screenshot('43-run-in-progress')
    assert.equal(await app.exists('composer-stop'), true, 'no Stop button during the run turn')
    await panelPhase('waiting-user')
    await waitIdle()
    assert.equal(readFileSync(join(projectRoot, 'artifacts', 'idea-notes.md'), 'utf8'), ideaNotes)
    await app.waitFor(`${sel('chat-title')}?.textContent === 'Write a project brief'`, { what: 'the conversation named after the workflow' })
  })

  await step('the inline selection widget is answered; the run completes', async () => {
    await app.waitFor(`${sel('widget-card')}?.dataset.state === 'pending'`, { what: 'the pending widget' })
    assert.match(await app.text('widget-prompt'), /Which format should the brief have\?/)
    assert.equal(await app.evaluate(`${sel('run-bar-phase')}.dataset.phase`), 'waiting-user')
    // the status once: the run bar; the question only in the conversation
    assert.equal(await app.evaluate(`document.body.innerText.match(/waiting for you/gi)?.length ?? 0`), 1, 'the status is said more than once')
    assert.doesNotMatch(await app.text('run-panel'), /Which format/)
    // the step's tool calls are one row in words, the calls one click away
    await app.waitFor(`${all('step-row')}.length === 1`, { what: 'the first step as one row' })
    assert.match(await app.text('step-title'), /^Step 1 · Capture the idea/)
    assert.equal(await app.text('step-summary'), "read the run's state, read the step's instructions, wrote idea-notes.md, moved to “Is the idea clear enough?”")
    assert.equal(await app.evaluate(`${sel('step-row')}.dataset.calls`), '4')
    await app.screenshot('44-widget-pending')
    await app.evaluate(`${all('widget-option')}.find((o) => o.dataset.value === 'One page').querySelector('input').click()`)
    await app.click('widget-submit')
    await app.waitFor(`${sel('widget-card')}?.dataset.state !== 'pending'`, { what: 'the widget to leave pending' })
    await app.waitFor(`${nodeStates}.startsWith('capture-idea=completed check-clarity=completed')`, { timeoutMs: 15000, what: 'the decision completed' })
    await panelPhase('completed')
    await waitIdle()
    assert.equal(await app.evaluate(nodeStates), 'capture-idea=completed check-clarity=completed clarify-idea=pending draft-brief=completed end=completed')
    await app.waitFor(`${sel('widget-card')}?.dataset.state === 'answered'`, { what: 'the widget answered' })
    assert.match(await app.text('widget-answer'), /One page/)
    assert.equal(await app.exists('widget-submit'), false, 'an answered widget can be answered again')
    await app.waitFor(`${all('msg-assistant')}.some((el) => el.textContent.includes('The one-page brief is in'))`, { what: 'the final answer' })
    assert.equal(await app.evaluate(`${sel('run-bar-phase')}.dataset.phase`), 'completed')
    const index = JSON.parse(readFileSync(join(dataDir, 'runsIndex.json'), 'utf8'))
    assert.equal(index.runs.length, 1)
    assert.equal(index.runs[0].phase, 'completed')
    assert.equal(index.runs[0].conversationId, runConv)
    await app.screenshot('45-run-completed')
  })

  await step('the artifacts are listed and open read-only', async () => {
    await app.waitFor(`${all('run-artifact')}.map((a) => a.dataset.path).join() === 'artifacts/idea-notes.md,artifacts/project-brief.md'`, { what: 'both artifacts' })
    assert.equal(readFileSync(join(projectRoot, 'artifacts', 'project-brief.md'), 'utf8'), brief)
    await app.evaluate(`${all('run-artifact')}.find((a) => a.dataset.path === 'artifacts/project-brief.md').click()`)
    await app.waitFor(`${sel('artifact-content')}?.querySelector('h1')?.textContent === 'Project brief: Shared grocery list'`, { what: 'the brief in the viewer, as Markdown' })
    assert.equal(await app.evaluate(`${sel('artifact-content')}.isContentEditable`), false)
    await app.screenshot('46-artifact-viewer')
    await app.click('artifact-viewer-close')
    // the execution log in the panel
    await app.evaluate(`${sel('run-log')}.closest('details').open = true`)
    await app.waitFor(`${all('run-log-line')}.some((l) => l.dataset.type === 'turn_end')`, { what: 'turn_end lines in the log' })
    assert.ok(await app.evaluate(`${all('run-log-line')}.some((l) => l.dataset.type === 'artifact_recorded')`), 'no artifact_recorded line')
    await app.evaluate(`${sel('run-log')}.scrollIntoView({ block: 'end' })`)
    await app.screenshot('47-run-tool-calls-and-log')
  })

  await step('the context meter and inspector work in Run mode', async () => {
    await app.waitFor(`${sel('context-meter')}?.dataset.status && ${sel('context-meter')}.dataset.status !== 'unknown'`, { what: 'the meter in Run mode' })
    await app.click('context-meter')
    await app.waitForTestId('inspector-body', { timeoutMs: 10000 })
    const text = await app.evaluate(`${sel('inspector-messages')}.textContent`)
    assert.match(text, /RUN_DIRECTIVE/)
    assert.match(text, /post-run/)
    await app.screenshot('48-inspector-run-mode')
    await app.click('context-inspector-close')
  })

  await step('after completion the input stays enabled; a state change needs a confirmation', async () => {
    assert.equal(await app.evaluate(`${sel('composer-input')}.disabled`), false)
    assert.match(await app.evaluate(`${sel('composer-input')}.placeholder`), /run is complete/)
    await app.typeInto('composer-input', 'Please mark the idea as unclear in the state.')
    await app.press('composer-input', 'Enter')
    await app.waitFor(`${all('widget-card')}.some((w) => w.dataset.type === 'confirmation' && w.dataset.state === 'pending')`, { timeoutMs: 15000, what: 'the confirmation widget' })
    await waitIdle()
    assert.equal(await app.evaluate(`${sel('run-bar-phase')}.dataset.phase`), 'completed')
    await app.screenshot('49-post-run-confirmation')
    await app.click('widget-yes')
    await app.waitFor(`${all('msg-assistant')}.some((el) => el.textContent.includes('Updated: the state now says'))`, { timeoutMs: 15000, what: 'the answer after the confirmation' })
    await waitIdle()
    const state = readFileSync(join(dataDir, 'runs', JSON.parse(readFileSync(join(dataDir, 'runsIndex.json'), 'utf8')).runs[0].runId, 'state', 'workflow.md'), 'utf8')
    assert.match(state, /ideaClear: false/)
    assert.equal(await app.evaluate(`${sel('run-bar-phase')}.dataset.phase`), 'completed')
  })

  await step('after a reload the answered widgets are read-only with their answers', async () => {
    await app.evaluate('location.reload(), true')
    await app.waitForTestId('workspace-screen', { timeoutMs: 15000 })
    await app.evaluate(`(() => { window.__cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI)); return true })()`)
    await app.waitFor(`${all('conv-item')}.some((el) => el.dataset.id === ${JSON.stringify(runConv)})`, { what: 'the run conversation in the list' })
    await app.evaluate(`${all('conv-item')}.find((el) => el.dataset.id === ${JSON.stringify(runConv)}).querySelector('[data-testid="conv-open"]').click()`)
    await app.waitFor(`${all('widget-card')}.length === 2`, { what: 'both widgets' })
    const cards = await app.evaluate(`${all('widget-card')}.map((w) => w.dataset.type + ':' + w.dataset.state + ':' + (w.querySelector('[data-testid="widget-answer"]')?.textContent ?? ''))`)
    assert.equal(cards.length, 2)
    assert.match(cards[0], /^selection:answered:.*One page/)
    assert.match(cards[1], /^confirmation:answered:.*Yes/)
    assert.equal(await app.exists('widget-submit'), false)
    assert.equal(await app.exists('widget-yes'), false)
    await app.waitFor(`${sel('run-bar-phase')}?.dataset.phase === 'completed'`, { what: 'the run bar after the reload' })
    await app.evaluate(`${all('widget-card')}[0].scrollIntoView({ block: 'center' })`)
    await app.screenshot('50-answers-after-reload')
  })

  await step('a broken package chosen in the native dialog shows its validation report', async () => {
    const broken = join(tmp, 'broken-pack.bmad')
    writeZip(broken, {
      'bmad.json': JSON.stringify({ schemaVersion: '1.1', name: 'Broken Pack', version: 'one', entry: { workflow: 'workflow.md', graph: 'workflow.graph.json', agents: 'agents.json' } }),
      'agents.json': JSON.stringify({ schemaVersion: '1.1', agents: [] }),
    })
    await app.click('open-settings')
    await app.click('settings-tab-packages')
    await app.waitForTestId('pkg-import-choose')
    await app.click('pkg-import-choose')
    const ids = await app.xdotool('search', '--sync', '--onlyvisible', '--name', '^Choose a package file$')
    await app.xdotool('windowfocus', '--sync', ids.split('\n')[0])
    await app.xdotool('key', 'ctrl+l')
    await app.xdotool('type', '--delay', '10', broken)
    await app.xdotool('key', 'Return')
    await app.waitForTestId('pkg-import-report', { timeoutMs: 15000 })
    const problems = await app.evaluate(`${all('pkg-problem')}.map((r) => ({ file: r.dataset.file, text: r.textContent }))`)
    assert.ok(problems.length >= 2, `only ${problems.length} problems`)
    // a pattern is shown as the schema writes it, its backslashes not doubled
    const pattern = problems.find((p) => p.text.includes('does not match pattern'))
    assert.ok(pattern, `no pattern problem: ${JSON.stringify(problems)}`)
    assert.ok(pattern.text.includes('^\\d+\\.') && !pattern.text.includes('\\\\'), `the pattern is escaped twice: ${pattern.text}`)
    assert.ok(problems.some((p) => p.file === 'bmad.json'), JSON.stringify(problems))
    assert.ok(problems.some((p) => p.file === 'agents.json'), JSON.stringify(problems))
    assert.ok(problems.every((p) => p.text.trim().length > p.file.length), 'a problem without a message')
    assert.match(await app.text('pkg-import-report'), /broken-pack\.bmad is not a valid package/)
    assert.equal(await app.evaluate(`${all('pkg-item')}.length`), 1, 'the broken package was installed')
    await app.screenshot('51-import-report')
  })

  await step('a valid package imported by typed path can become the active package', async () => {
    const files = readTree(join(repo, 'backend/packages/demo'))
    files['bmad.json'] = Buffer.from(files['bmad.json'].toString('utf8').replace('"name": "crewagent-demo"', '"name": "team-briefs"'))
    const good = join(tmp, 'team-briefs.bmad')
    writeZip(good, files)
    await app.typeInto('pkg-import-path', good)
    await app.click('pkg-import-submit')
    await app.waitFor(`${sel('pkg-import-ok')}?.textContent.includes('team-briefs')`, { timeoutMs: 15000, what: 'the installed package' })
    await app.waitFor(`${all('pkg-item')}.length === 2`, { what: 'both packages listed' })
    await app.click('pkg-import-use')
    await app.waitFor(`${sel('workspace-package')}?.textContent.includes('team-briefs 1.0.0')`, { what: 'the new active package in the top bar' })
    assert.equal(JSON.parse(readFileSync(join(projectRoot, '.crewagent.json'), 'utf8')).activePackageId, 'team-briefs@1.0.0')
    assert.ok(existsSync(join(home, 'packages', 'team-briefs@1.0.0')), 'the package folder is missing')
    await app.screenshot('52-package-switched')
    // back to the demo
    await app.evaluate(`${all('pkg-item')}.find((el) => el.dataset.name === 'crewagent-demo').querySelector('[data-testid="pkg-use"]').click()`)
    await app.waitFor(`${sel('workspace-package')}?.textContent.includes('crewagent-demo 1.0.0')`, { what: 'the demo active again' })
    await app.click('settings-screen-close')
  })

  await step('packages are removed after a confirmation; the demo can be installed again', async () => {
    await app.click('workspace-package')
    await app.waitFor(`${all('pkg-item')}.length === 2`, { what: 'both packages' })
    const removeOf = (name) => `${all('pkg-item')}.find((el) => el.dataset.name === ${JSON.stringify(name)}).querySelector('[data-testid="pkg-remove"]').click()`
    // a package that is not the active one
    await app.evaluate(removeOf('team-briefs'))
    await app.waitForTestId('pkg-remove-dialog')
    assert.equal(await app.exists('pkg-remove-active'), false)
    await app.click('pkg-remove-confirm')
    await app.waitFor(`${all('pkg-item')}.length === 1 && !document.querySelector('[data-testid="pkg-remove-dialog"]')`, { what: 'the package gone from the list' })
    assert.ok(!existsSync(join(home, 'packages', 'team-briefs@1.0.0')), 'the package folder is still there')
    assert.deepEqual(JSON.parse(readFileSync(join(home, 'packages.json'), 'utf8')).packages.map((p) => p.id), ['crewagent-demo@1.0.0'])
    // the active one: the dialog says what happens to the project
    await app.evaluate(removeOf('crewagent-demo'))
    await app.waitForTestId('pkg-remove-active')
    assert.match(await app.text('pkg-remove-active'), /active package of/)
    await app.screenshot('53-package-remove-dialog')
    await app.click('pkg-remove-confirm')
    await app.waitForTestId('pkg-demo-missing', { timeoutMs: 15000 })
    assert.equal(await app.evaluate(`${all('pkg-item')}.length`), 0)
    await app.waitFor(`${sel('workspace-package')}?.textContent.includes('Package: none')`, { what: 'no package in the top bar' })
    assert.equal(JSON.parse(readFileSync(join(projectRoot, '.crewagent.json'), 'utf8')).activePackageId, '')
    assert.equal(JSON.parse(readFileSync(join(home, 'packages.json'), 'utf8')).demoRemoved, true)
    await app.screenshot('54-demo-removed')
    await app.click('pkg-install-demo')
    await app.waitFor(`${all('pkg-item')}.length === 1 && !document.querySelector('[data-testid="pkg-demo-missing"]')`, { timeoutMs: 15000, what: 'the demo installed again' })
    await app.evaluate(`${all('pkg-item')}[0].querySelector('[data-testid="pkg-use"]').click()`)
    await app.waitFor(`${sel('workspace-package')}?.textContent.includes('crewagent-demo 1.0.0')`, { what: 'the demo active again' })
    assert.ok(existsSync(join(home, 'packages', 'crewagent-demo@1.0.0')), 'the demo folder is missing')
    await app.click('settings-screen-close')
  })

  await step('no content security policy violations', async () => {
    assert.deepEqual(await app.evaluate('window.__cspViolations'), [])
  })
}
