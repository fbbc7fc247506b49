import { act, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import type { Entry, RunStatus } from '../../bridge'
import { answer, msg, question, runInput } from '../../test/entries'
import { createFakeBridge, demoNodes, demoPackage } from '../../test/fakeBridge'
import { renderWithStores } from '../../test/render'
import { App } from '../../App'
import { applyLanguage } from '../../i18n'

const project = { id: 'p1', name: 'alpha', root: '/home/me/alpha', dataDir: '/d', activePackageId: demoPackage.id }

const sized = ['offsetHeight', 'offsetWidth', 'clientHeight', 'clientWidth'] as const
beforeAll(() => {
  for (const p of sized) Object.defineProperty(HTMLElement.prototype, p, { configurable: true, get: () => (p.endsWith('Height') ? 600 : 800) })
})
afterAll(() => {
  for (const p of sized) delete (HTMLElement.prototype as unknown as Record<string, unknown>)[p]
})

const nodesAt = (done: string[], current: string) => demoNodes.map((n) => ({ ...n, status: done.includes(n.id) ? 'completed' : n.id === current ? 'current' : 'pending' }))

const selection = { widgetId: 'w1', type: 'selection', prompt: 'Which format should the brief have?', options: [{ value: 'one', label: 'One page' }, { value: 'bullets', label: 'Bullet summary' }], createdAt: '' }

function runAt(over: Partial<RunStatus> = {}): RunStatus {
  return {
    runId: 'r1',
    conversationId: 'c1',
    packageId: demoPackage.id,
    workflowId: 'write-brief',
    activeAgentId: 'analyst',
    effectiveAgentId: 'analyst',
    phase: 'waiting-user',
    currentNodeId: 'check-clarity',
    stepsCompleted: ['capture-idea'],
    artifacts: ['artifacts/idea-notes.md'],
    complete: false,
    nodes: nodesAt(['capture-idea'], 'check-clarity'),
    updatedAt: '',
    active: false,
    pendingWidget: selection,
    ...over,
  }
}

const askEntries = (widget: Record<string, unknown>, state: 'pending' | 'answered' = 'pending', record?: unknown): Entry[] => [
  runInput('u1', 'capture-idea', 'A grocery list for roommates', { runId: 'r1' }),
  ...question(String(widget.widgetId), 'k1', widget, state, 'r1', record),
]

function renderRun(entries: Entry[], run: RunStatus | null, opts: Parameters<typeof createFakeBridge>[0] = {}) {
  const fake = createFakeBridge({
    folders: ['/home/me/alpha'],
    current: project,
    activePackageId: demoPackage.id,
    conversations: [{ meta: { id: 'c1', title: 'Write a project brief', activeType: 'workflow' }, entries }],
    runs: run ? [run] : [],
    files: { 'artifacts/idea-notes.md': '# Idea\nA shared grocery list.\n' },
    runLogs: {
      r1: [
        { ts: '2026-06-01T10:00:00Z', type: 'run_created', text: 'The run was created', raw: '{"ts":"2026-06-01T10:00:00Z","type":"run_created","workflowId":"write-brief"}' },
        { ts: '2026-06-01T10:00:01Z', type: 'tool_call', tool: 'fs.write', ok: true, args: '{"path":"@project/artifacts/idea-notes.md"}', durationMs: 3, text: 'Wrote idea-notes.md', raw: '{}' },
        { ts: '2026-06-01T10:00:02Z', type: 'tool_call', tool: 'fs.apply_patch', ok: false, code: 'E_INVALID_TRANSITION', args: '{"path":"@state/workflow.md"}', text: "Tried: updated the run's state (failed)", raw: '{}' },
      ],
    },
    ...opts,
  })
  const r = renderWithStores(<App />, fake.bridge)
  return { fake, ...r }
}

async function openFirst() {
  const item = (await screen.findAllByTestId('conv-item'))[0]
  await userEvent.click(within(item).getByTestId('conv-open'))
  return screen.findByTestId('chat-view')
}

describe('run side panel', () => {
  it('shows node statuses, artifacts and what the run did in words, says the phase once, and follows progress events', async () => {
    const { fake } = renderRun(askEntries(selection), runAt())
    await openFirst()
    const panel = await screen.findByTestId('run-panel')
    await vi.waitFor(() => expect(within(panel).getAllByTestId('run-node')).toHaveLength(5))
    const nodeStates = () => within(panel).getAllByTestId('run-node').map((n) => `${n.dataset.node}=${n.dataset.status}`)
    expect(nodeStates()).toEqual(['capture-idea=completed', 'check-clarity=current', 'clarify-idea=pending', 'draft-brief=pending', 'end=pending'])
    // the phase, once: in the run bar; the question is in the conversation
    expect(screen.getByTestId('run-bar-phase').dataset.phase).toBe('waiting-user')
    expect(screen.getAllByText(/waiting for you/i)).toHaveLength(1)
    expect(within(panel).queryByText(/Which format/)).toBeNull()
    expect((await screen.findByTestId('widget-card')).dataset.state).toBe('pending')
    // the log in words, without tool names or paths
    await vi.waitFor(() => expect(within(panel).getAllByTestId('run-log-line')).toHaveLength(3))
    expect(within(panel).getAllByTestId('run-log-line').map((l) => [l.dataset.type, l.dataset.ok, l.querySelector('.run-log-text')?.textContent])).toEqual([
      ['run_created', 'true', 'The run was created'],
      ['tool_call', 'true', 'Wrote idea-notes.md'],
      ['tool_call', 'false', "Tried: updated the run's state (failed)"],
    ])
    expect(panel).not.toHaveTextContent(/@state|@project|fs\.write|fs\.apply_patch|r1/)
    // the package is in the top bar only; the status bar names the run
    expect(screen.queryByTestId('status-package')).toBeNull()
    expect(screen.queryByTestId('status-bar')).toBeNull() // the run bar says it in Run mode
    await userEvent.click(screen.getByTestId('mode-chat'))
    expect(await screen.findByTestId('status-run')).toHaveTextContent(/Run/)
    expect(screen.getByTestId('status-project')).toHaveTextContent('alpha')
    await userEvent.click(screen.getByTestId('mode-run'))
    expect(screen.queryByTestId('status-bar')).toBeNull()

    // live: the run moves on
    act(() =>
      fake.emit('runs:progressUpdated', {
        ...runAt(),
        phase: 'completed',
        complete: true,
        currentNodeId: 'end',
        stepsCompleted: ['capture-idea', 'check-clarity', 'draft-brief', 'end'],
        artifacts: ['artifacts/idea-notes.md', 'artifacts/project-brief.md'],
        nodes: nodesAt(['capture-idea', 'check-clarity', 'draft-brief', 'end'], ''),
      }),
    )
    expect(nodeStates()).toEqual(['capture-idea=completed', 'check-clarity=completed', 'clarify-idea=pending', 'draft-brief=completed', 'end=completed'])
    expect(screen.getByTestId('run-bar-phase').dataset.phase).toBe('completed')
    expect(within(panel).getByTestId('run-panel-count')).toHaveTextContent('Complete: 4 steps done')
    const skipped = within(panel).getAllByTestId('run-node').find((n) => n.dataset.node === 'clarify-idea')!
    expect(skipped).toHaveClass('is-skipped')
    expect(skipped).toHaveTextContent('not taken')
    expect(within(panel).getAllByTestId('run-artifact').map((a) => a.dataset.path)).toEqual(['artifacts/idea-notes.md', 'artifacts/project-brief.md'])
  })

  it("says the run's activity in the language in use from the lines' words, and the backend's text without them", async () => {
    const system = vi.spyOn(navigator, 'languages', 'get').mockReturnValue(['zh-CN'])
    try {
      renderRun(askEntries(selection), runAt(), {
        runLogs: {
          r1: [
            { ts: '2026-06-01T10:00:00Z', type: 'run_created', text: 'The run was created', raw: '{}', words: { key: 'run.log.created' } },
            { ts: '2026-06-01T10:00:01Z', type: 'tool_call', tool: 'fs.write', ok: true, args: '{}', text: 'Wrote idea-notes.md', raw: '{}', words: { key: 'run.call.write', params: { what: 'idea-notes.md' } } },
            { ts: '2026-06-01T10:00:02Z', type: 'tool_call', tool: 'fs.apply_patch', ok: false, args: '{}', text: "Tried: updated the run's state (failed)", raw: '{}', words: { key: 'run.call.tried', params: { list: [{ key: 'run.call.updatedState' }] } } },
            { ts: '2026-06-01T10:00:03Z', type: 'turn_end', text: 'The turn ended: waiting for you (2 model requests)', raw: '{}', words: { key: 'run.log.turnEndedRequests', params: { phase: { key: 'run.phase.waitingUser' }, n: 2 } } },
            { ts: '2026-06-01T10:00:04Z', type: 'something_new', text: 'Something new', raw: '{}' },
          ],
        },
      })
      await openFirst()
      const panel = await screen.findByTestId('run-panel')
      await vi.waitFor(() => expect(within(panel).getAllByTestId('run-log-line')).toHaveLength(5))
      expect(within(panel).getAllByTestId('run-log-line').map((l) => l.querySelector('.run-log-text')?.textContent)).toEqual([
        '已创建运行',
        '写入了 idea-notes.md',
        '尝试更新了运行状态（失败）',
        '本轮结束：等待你的回复（2 次模型请求）',
        'Something new',
      ])
    } finally {
      system.mockRestore()
      applyLanguage('en')
    }
  })

  it('opens an artifact read-only and collapses', async () => {
    renderRun(askEntries(selection), runAt())
    await openFirst()
    const panel = await screen.findByTestId('run-panel')
    await userEvent.click(await within(panel).findByTestId('run-artifact'))
    const viewer = await screen.findByTestId('artifact-viewer')
    // Markdown, formatted
    expect(within(viewer).getByTestId('artifact-content')).toHaveTextContent('A shared grocery list.')
    expect(within(viewer).getByTestId('artifact-content').dataset.format).toBe('markdown')
    expect(within(viewer).getByRole('heading', { name: 'Idea' })).toBeInTheDocument()
    await userEvent.click(screen.getByTestId('artifact-viewer-close'))
    expect(screen.queryByTestId('artifact-viewer')).toBeNull()

    await userEvent.click(screen.getByTestId('run-panel-collapse'))
    expect(screen.getByTestId('run-panel').dataset.open).toBe('false')
    expect(screen.queryByTestId('run-node')).toBeNull()
    await userEvent.click(screen.getByTestId('run-panel-expand'))
    expect(screen.getByTestId('run-panel').dataset.open).toBe('true')
  })

  it('has no panel without a run; Run mode offers the workflow and agent pickers and Start run', async () => {
    const { fake } = renderRun([], null)
    await openFirst()
    expect(screen.queryByTestId('run-panel')).toBeNull()
    expect(screen.queryByTestId('status-bar')).toBeNull() // only while a run exists
    const picker = await screen.findByTestId('run-workflow-picker')
    await vi.waitFor(() => expect((picker as HTMLSelectElement).value).toBe('write-brief'))
    const agents = screen.getByTestId('run-agent-picker') as HTMLSelectElement
    expect([...agents.options].map((o) => o.value)).toEqual(['', 'analyst', 'writer'])
    await userEvent.selectOptions(agents, 'writer')
    await userEvent.type(screen.getByTestId('composer-input'), 'A shared grocery list')
    await userEvent.click(screen.getByTestId('composer-start-run'))
    expect(fake.bridge.runs.start).toHaveBeenCalledWith({ conversationId: 'c1', workflowId: 'write-brief', agentId: 'writer', message: 'A shared grocery list' })
    expect(await screen.findByTestId('run-panel')).toBeInTheDocument()
    expect(screen.getByTestId('chat-view').dataset.streaming).toBe('true')
  })
})

describe('ui.ask_user widgets inline', () => {
  it('answers a pending selection; the run continues', async () => {
    const { fake } = renderRun(askEntries(selection), runAt())
    await openFirst()
    const card = await screen.findByTestId('widget-card')
    expect(card.dataset.state).toBe('pending')
    expect(screen.queryByTestId('tool-card')).toBeNull() // the widget, not a tool card
    expect(screen.getByTestId('msg-user')).toHaveTextContent('A grocery list for roommates')
    expect(screen.getByTestId('msg-user')).not.toHaveTextContent('USER_INPUT')
    const submit = within(card).getByTestId('widget-submit')
    expect(submit).toBeDisabled()
    await userEvent.click(within(card).getAllByTestId('widget-option')[0].querySelector('input')!)
    await userEvent.click(submit)
    expect(fake.bridge.runs.answerWidget).toHaveBeenCalledWith('r1', 'w1', { selected: 'one' })
    expect(screen.getByTestId('chat-view').dataset.streaming).toBe('true')
  })

  it('shows an answered widget read-only with its answer (as after a reload)', async () => {
    const record = { widgetId: 'w1', type: 'selection', answer: { selected: 'one' } }
    const entries = [
      ...askEntries(selection, 'answered', record),
      answer('u2', 'w1', 'selection', { selected: 'one' }, 'Answer to "Which format should the brief have?" (widget w1):\nOne page'),
      msg('a2', 'assistant', 'Great, drafting a one-page brief.', { runId: 'r1', mode: 'run' }),
    ]
    renderRun(entries, runAt({ pendingWidget: undefined, phase: 'completed', complete: true }))
    await openFirst()
    const card = await screen.findByTestId('widget-card')
    expect(card.dataset.state).toBe('answered')
    expect(within(card).queryByTestId('widget-submit')).toBeNull()
    expect(within(card).getByTestId('widget-answer')).toHaveTextContent('One page')
    const options = within(card).getAllByTestId('widget-option')
    expect(options.map((o) => o.dataset.chosen)).toEqual(['true', 'false'])
    expect(options.every((o) => o.querySelector('input')!.disabled)).toBe(true)
    // the answer's own message is not repeated as a bubble
    expect(screen.getAllByTestId('msg-user')).toHaveLength(1)
  })

  it('confirmation: Yes and No answer at once', async () => {
    const confirm = { widgetId: 'w1', type: 'confirmation', prompt: 'Mark the idea as unclear?', createdAt: '' }
    const { fake } = renderRun(askEntries(confirm), runAt({ pendingWidget: confirm }))
    await openFirst()
    const card = await screen.findByTestId('widget-card')
    await userEvent.click(within(card).getByTestId('widget-no'))
    expect(fake.bridge.runs.answerWidget).toHaveBeenCalledWith('r1', 'w1', { confirmed: false })
  })

  it('form: checks required fields, sends typed values', async () => {
    const form = {
      widgetId: 'w1',
      type: 'form',
      prompt: 'Tell me more',
      fields: [
        { name: 'audience', label: 'Audience', type: 'text', required: true },
        { name: 'size', label: 'Team size', type: 'number', required: false },
        { name: 'urgent', label: 'Urgent', type: 'boolean', required: false },
        { name: 'tone', label: 'Tone', type: 'select', required: false, options: [{ value: 'plain', label: 'Plain' }] },
      ],
      createdAt: '',
    }
    const { fake } = renderRun(askEntries(form), runAt({ pendingWidget: form }))
    await openFirst()
    const card = await screen.findByTestId('widget-card')
    await userEvent.click(within(card).getByTestId('widget-submit'))
    expect(within(card).getByTestId('widget-missing')).toHaveTextContent('Audience')
    expect(fake.bridge.runs.answerWidget).not.toHaveBeenCalled()
    await userEvent.type(within(card).getByTestId('widget-field-audience'), 'Roommates')
    await userEvent.type(within(card).getByTestId('widget-field-size'), '4')
    await userEvent.click(within(card).getByTestId('widget-field-urgent'))
    await userEvent.selectOptions(within(card).getByTestId('widget-field-tone'), 'plain')
    await userEvent.click(within(card).getByTestId('widget-submit'))
    expect(fake.bridge.runs.answerWidget).toHaveBeenCalledWith('r1', 'w1', { values: { audience: 'Roommates', size: 4, urgent: true, tone: 'plain' } })
  })

  it('after completion the input stays enabled and messages go to the run', async () => {
    const entries = [runInput('u1', 'capture-idea', 'idea', { runId: 'r1' }), msg('a1', 'assistant', 'Done: the brief is written.', { runId: 'r1', mode: 'run' })]
    const { fake } = renderRun(entries, runAt({ phase: 'completed', complete: true, pendingWidget: undefined, nodes: nodesAt(['capture-idea', 'check-clarity', 'draft-brief', 'end'], '') }))
    await openFirst()
    await screen.findByTestId('run-panel')
    const input = screen.getByTestId('composer-input') as HTMLTextAreaElement
    expect(input).not.toBeDisabled()
    await vi.waitFor(() => expect(input.placeholder).toMatch(/run is complete/))
    expect(screen.getByTestId('run-bar-step')).toHaveTextContent(/needs your confirmation/)
    await userEvent.type(input, 'Thanks! One more thing{Enter}')
    expect(fake.sent.at(-1)).toMatchObject({ conversationId: 'c1', text: 'Thanks! One more thing', mode: 'run' })
  })
})
