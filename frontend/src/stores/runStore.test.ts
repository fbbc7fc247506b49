import type { RunProgress, RunStatus } from '../bridge'
import { createFakeBridge, demoNodes, demoPackage } from '../test/fakeBridge'
import { createChatStore } from './chatStore'
import { applyProgress, createRunStore, runRefreshDelayMs } from './runStore'

const project = { id: 'p1', name: 'alpha', root: '/w/alpha', dataDir: '/d', activePackageId: demoPackage.id }

const waiting = (over: Partial<RunStatus> = {}): RunStatus => ({
  runId: 'r1',
  conversationId: 'c1',
  packageId: demoPackage.id,
  workflowId: 'write-brief',
  activeAgentId: 'analyst',
  phase: 'waiting-user',
  currentNodeId: 'check-clarity',
  stepsCompleted: ['capture-idea'],
  artifacts: ['artifacts/idea-notes.md'],
  complete: false,
  nodes: demoNodes.map((n) => ({ ...n, status: n.id === 'capture-idea' ? 'completed' : n.id === 'check-clarity' ? 'current' : 'pending' })),
  updatedAt: '2026-06-01T00:00:00Z',
  active: false,
  pendingWidget: { widgetId: 'w1', type: 'selection', prompt: 'Which format?', options: [{ value: 'one', label: 'One page' }], createdAt: '' },
  ...over,
})

function setup(opts: Parameters<typeof createFakeBridge>[0] = {}) {
  const fake = createFakeBridge({ current: project, activePackageId: demoPackage.id, conversations: [{ meta: { id: 'c1' } }, { meta: { id: 'c2' } }], ...opts })
  const chat = createChatStore(fake.bridge, (fn) => fn())
  const runs = createRunStore(fake.bridge, chat)
  const stop = runs.actions.start()
  return { fake, chat, runs, stop }
}

const statuses = (r: RunStatus | null) => (r?.nodes ?? []).map((n) => `${n.id}=${n.status}`).join(' ')

describe('runStore', () => {
  it('opens a conversation with its run and the execution log', async () => {
    const { runs, fake } = setup({
      runs: [waiting()],
      runLogs: { r1: [{ ts: '2026-06-01T00:00:01Z', type: 'tool_call', tool: 'fs.read', ok: true, args: '{"path":"@state/workflow.md"}', text: "Read the run's state", raw: '{}' }] },
    })
    await runs.actions.open('c1')
    const s = runs.getState()
    expect(s.loaded).toBe(true)
    expect(s.run?.phase).toBe('waiting-user')
    expect(statuses(s.run)).toBe('capture-idea=completed check-clarity=current clarify-idea=pending draft-brief=pending end=pending')
    expect(s.log?.lines.map((l) => l.tool)).toEqual(['fs.read'])
    expect(fake.bridge.runs.log).toHaveBeenCalledWith('r1', 300)

    await runs.actions.open('c2')
    expect(runs.getState().run).toBeNull()
    expect(runs.getState().log).toBeNull()
  })

  it('follows runs:progressUpdated for its conversation only, then re-reads the status', async () => {
    vi.useFakeTimers()
    try {
      const { runs, fake } = setup({ runs: [waiting({ phase: 'running', pendingWidget: undefined, active: true })] })
      await runs.actions.open('c1')
      const progress: RunProgress = {
        ...waiting(),
        phase: 'running',
        currentNodeId: 'draft-brief',
        stepsCompleted: ['capture-idea', 'check-clarity'],
        nodes: demoNodes.map((n) => ({ ...n, status: ['capture-idea', 'check-clarity'].includes(n.id) ? 'completed' : n.id === 'draft-brief' ? 'current' : 'pending' })),
      }
      fake.emit('runs:progressUpdated', { ...progress, conversationId: 'c2', runId: 'other' })
      expect(runs.getState().run?.currentNodeId).toBe('check-clarity')
      fake.emit('runs:progressUpdated', progress)
      expect(runs.getState().run?.currentNodeId).toBe('draft-brief')
      expect(statuses(runs.getState().run)).toBe('capture-idea=completed check-clarity=completed clarify-idea=pending draft-brief=current end=pending')
      expect(runs.getState().run?.active).toBe(true)

      // the Go side moved on: the debounced re-read brings the pending question
      fake.setRun(waiting({ currentNodeId: 'draft-brief' }))
      const calls = vi.mocked(fake.bridge.runs.conversationRun).mock.calls.length
      await vi.advanceTimersByTimeAsync(runRefreshDelayMs + 10)
      expect(vi.mocked(fake.bridge.runs.conversationRun).mock.calls.length).toBe(calls + 1)
      expect(runs.getState().run?.pendingWidget?.widgetId).toBe('w1')
    } finally {
      vi.useRealTimers()
    }
  })

  it('applyProgress keeps the pending question only for the same run when not running', () => {
    const run = waiting()
    const p = { ...run, phase: 'waiting-user' } as RunProgress
    expect(applyProgress(run, p).pendingWidget?.widgetId).toBe('w1')
    expect(applyProgress(run, { ...p, phase: 'running' }).pendingWidget).toBeUndefined()
    const other = applyProgress(run, { ...p, runId: 'r2', nodes: undefined })
    expect(other.pendingWidget).toBeUndefined()
    expect(other.nodes).toBeUndefined()
    expect(applyProgress(run, { ...p, lastError: undefined, nodes: undefined }).nodes).toEqual(run.nodes)
  })

  it('starts a run with the chosen workflow and agent and marks the conversation as streaming', async () => {
    const { runs, chat, fake } = setup()
    await chat.actions.open('c1')
    await runs.actions.open('c1')
    expect(await runs.actions.startRun('my idea')).toBe(false) // no workflow chosen yet
    expect(runs.getState().error?.message).toMatch(/Choose a workflow/)
    runs.actions.choose({ workflowId: 'write-brief', agentId: 'writer' })
    expect(await runs.actions.startRun('  my idea ')).toBe(true)
    expect(fake.bridge.runs.start).toHaveBeenCalledWith({ conversationId: 'c1', workflowId: 'write-brief', agentId: 'writer', message: 'my idea' })
    expect(chat.getState().streaming).toBe(true)
    expect(runs.getState().run?.phase).toBe('running')
    expect(runs.getState().error).toBeNull()
  })

  it('reports a refused start and leaves the conversation idle', async () => {
    const { runs, chat } = setup()
    await chat.actions.open('c1')
    await runs.actions.open('c1')
    runs.actions.choose({ workflowId: 'no-such-workflow' })
    expect(await runs.actions.startRun('')).toBe(false)
    expect(runs.getState().error?.code).toBe('RUN_WORKFLOW_NOT_FOUND')
    expect(chat.getState().streaming).toBe(false)
    expect(runs.getState().run).toBeNull()
  })

  it('answers a widget of the run and refreshes when the answer is refused', async () => {
    const { runs, chat, fake } = setup({ runs: [waiting()] })
    await chat.actions.open('c1')
    await runs.actions.open('c1')
    expect(await runs.actions.answerWidget('r1', 'stale', { selected: 'one' })).toBe(false)
    expect(runs.getState().error?.code).toBe('RUN_NO_PENDING_WIDGET')
    expect(chat.getState().streaming).toBe(false)
    expect(await runs.actions.answerWidget('r1', 'w1', { selected: 'one' })).toBe(true)
    expect(fake.answers).toEqual([{ runId: 'r1', widgetId: 'w1', answer: { selected: 'one' } }])
    expect(chat.getState().streaming).toBe(true)
    expect(runs.getState().run?.pendingWidget).toBeUndefined()
    expect(runs.getState().answering).toBeNull()
  })

  it('reads an artifact for the viewer and reports paths outside the project', async () => {
    const { runs } = setup({ files: { 'artifacts/idea-notes.md': '# Idea\n' } })
    await runs.actions.openArtifact('artifacts/idea-notes.md')
    expect(runs.getState().artifact?.content).toBe('# Idea\n')
    runs.actions.closeArtifact()
    expect(runs.getState().artifact).toBeNull()
    await runs.actions.openArtifact('../secret')
    expect(runs.getState().error?.code).toBe('E_ARTIFACT_PATH')
  })

  it('unsubscribes everything it subscribed', () => {
    const { fake, stop } = setup()
    expect(fake.listenerCount('runs:progressUpdated')).toBe(1)
    stop()
    expect(fake.listenerCount('runs:progressUpdated')).toBe(0)
    expect(fake.listenerCount('conversation:changed')).toBe(0)
    expect(fake.listenerCount('llm:stream-tool-end')).toBe(0)
  })
})
