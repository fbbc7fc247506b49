import { fireEvent, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import type { Entry } from '../../bridge'
import { applyLanguage } from '../../i18n'
import { msg } from '../../test/entries'
import { createFakeBridge } from '../../test/fakeBridge'
import { renderWithStores } from '../../test/render'
import { buildRows } from './messageRows'
import { ChatView } from './ChatView'
import { sameRow } from './rows'

// jsdom has no layout: give elements a size so the virtual list renders rows.
const sized = ['offsetHeight', 'offsetWidth', 'clientHeight', 'clientWidth'] as const
beforeAll(() => {
  for (const p of sized) Object.defineProperty(HTMLElement.prototype, p, { configurable: true, get: () => (p.endsWith('Height') ? 600 : 800) })
})
afterAll(() => {
  for (const p of sized) delete (HTMLElement.prototype as unknown as Record<string, unknown>)[p]
})

type ConvOpts = NonNullable<Parameters<typeof createFakeBridge>[0]>['conversations'] extends (infer C)[] | undefined ? C : never

function renderChat(entries: Entry[], more: Partial<ConvOpts> = {}) {
  const fake = createFakeBridge({ conversations: [{ meta: { id: 'c1', title: 'Plans' }, entries, ...more }] })
  const r = renderWithStores(<ChatView conversationId="c1" />, fake.bridge)
  return { fake, ...r }
}

const errorView = (code: string, message: string, problem: { title: string; advice?: string; settings?: boolean; titleKey?: string; adviceKey?: string; params?: Record<string, unknown> }, extra: Record<string, unknown> = {}) => ({
  kind: 'error',
  text: '',
  error: { code, message, retryable: true, fields: { code, message, provider: '127.0.0.1:1' } },
  problem,
  latest: true,
  ...extra,
})

describe('failures, stops and what they offer', () => {
  it('says an unreachable server in words, keeps the raw error under Details, and offers Settings', async () => {
    const raw = 'Post "http://127.0.0.1:1/v1/chat/completions": dial tcp 127.0.0.1:1: connect: connection refused'
    const { stores } = renderChat([
      msg('u1', 'user', 'hi'),
      msg('x1', 'assistant', `LLM_ERROR\n- code: LLM_NETWORK\n- message: ${raw}`, {
        partType: 'error',
        view: errorView('LLM_NETWORK', raw, { title: "Can't reach the model server", advice: 'Nothing answered at 127.0.0.1:1.', settings: true }),
      }),
    ])
    const row = await screen.findByTestId('msg-error')
    expect(within(row).getByTestId('problem-title')).toHaveTextContent("Can't reach the model server")
    expect(within(row).getByTestId('problem-title').textContent).not.toMatch(/LLM_|dial tcp/)
    const details = within(row).getByTestId('problem-details')
    expect(details).not.toHaveAttribute('open')
    expect(details).toHaveTextContent('connection refused')
    expect(details).toHaveTextContent('code LLM_NETWORK')
    // nothing arrived: Retry, no Continue
    expect(within(row).queryByTestId('error-continue')).toBeNull()
    expect(within(row).getByTestId('error-retry')).toBeInTheDocument()
    await userEvent.click(within(row).getByTestId('error-open-settings'))
    expect(stores.settings.getState().open).toBe(true)
  })

  it('says a failed reply in Chinese from its templates, the raw error still under Details', async () => {
    const raw = 'Post "http://127.0.0.1:1/v1/chat/completions": dial tcp 127.0.0.1:1: connect: connection refused'
    applyLanguage('zh-CN')
    try {
      renderChat([
        msg('u1', 'user', 'hi'),
        msg('x1', 'assistant', `LLM_ERROR\n- code: LLM_NETWORK\n- message: ${raw}`, {
          partType: 'error',
          view: errorView('LLM_NETWORK', raw, {
            title: "Can't reach the model server",
            advice: 'Nothing answered at 127.0.0.1:1.',
            settings: true,
            titleKey: 'problem.unreachable.title',
            adviceKey: 'problem.atProviderRefused.advice',
            params: { where: '127.0.0.1:1' },
          }),
        }),
      ])
      const row = await screen.findByTestId('msg-error')
      expect(within(row).getByTestId('problem-title')).toHaveTextContent('无法连接模型服务器')
      expect(within(row).getByTestId('problem-advice')).toHaveTextContent('127.0.0.1:1 没有响应。请确认服务器正在运行，并检查设置中的地址是否正确。')
      expect(within(row).getByTestId('problem-details')).toHaveTextContent('connection refused')
    } finally {
      applyLanguage('en')
    }
  })

  it('offers Continue only when something of the reply arrived', async () => {
    renderChat([
      msg('u1', 'user', 'hi'),
      msg('x1', 'assistant', 'Half', { partType: 'error', view: errorView('LLM_NETWORK', 'closed', { title: 'The connection broke off' }, { text: 'Half', continue: true }) }),
    ])
    const row = await screen.findByTestId('msg-error')
    expect(within(row).getByTestId('error-continue')).toBeInTheDocument()
    expect(within(row).getByTestId('error-retry')).toBeInTheDocument()
    expect(within(row).queryByTestId('error-open-settings')).toBeNull()
  })

  it('shows a stop as a quiet note with Continue, not as an error', async () => {
    const { fake } = renderChat([
      msg('u1', 'user', 'a poem'),
      msg('s1', 'assistant', 'Roses are\n\nLLM_ERROR\n- code: LLM_ABORTED', {
        partType: 'error',
        view: { kind: 'stopped', text: 'Roses are', latest: true, continue: true, error: { code: 'LLM_ABORTED', message: 'stopped before the answer was complete', retryable: true } },
      }),
    ])
    const row = await screen.findByTestId('msg-stopped')
    expect(within(row).getByTestId('stopped-label')).toHaveTextContent('Stopped')
    expect(row).toHaveTextContent('Roses are')
    expect(row.textContent).not.toMatch(/LLM_ABORTED/)
    expect(within(row).queryByRole('alert')).toBeNull()
    expect(screen.queryByTestId('msg-error')).toBeNull()
    await userEvent.click(within(row).getByTestId('stopped-continue'))
    expect(fake.sent.at(-1)).toMatchObject({ text: 'continue' })
  })

  it('a stop before any text offers Retry only', async () => {
    renderChat([
      msg('u1', 'user', 'a poem'),
      msg('s1', 'assistant', 'LLM_ERROR\n- code: LLM_ABORTED', {
        partType: 'error',
        view: { kind: 'stopped', text: '', latest: true, error: { code: 'LLM_ABORTED', message: 'stopped', retryable: true } },
      }),
    ])
    const row = await screen.findByTestId('msg-stopped')
    expect(within(row).queryByTestId('stopped-continue')).toBeNull()
    expect(within(row).getByTestId('stopped-retry')).toBeInTheDocument()
  })

  it('a reply cut off after the user message offers Retry, not Continue', async () => {
    renderChat([msg('u1', 'user', 'hi')], { unfinished: true })
    const row = await screen.findByTestId('msg-unfinished')
    expect(within(row).queryByTestId('unfinished-continue')).toBeNull()
    expect(within(row).getByTestId('unfinished-retry')).toBeInTheDocument()
  })

  it('a reply cut off after a tool step offers both', async () => {
    renderChat([msg('u1', 'user', 'hi'), msg('a1', 'assistant', undefined, { tool_calls: [{ id: 'k', type: 'function', function: { name: 'fs.list', arguments: '{}' } }] })], {
      unfinished: true,
      canContinue: true,
    })
    const row = await screen.findByTestId('msg-unfinished')
    expect(within(row).getByTestId('unfinished-continue')).toBeInTheDocument()
  })

  it('a fork cut at a message is not a crash: it offers to answer it', async () => {
    const { fake } = renderChat([msg('u1', 'user', 'hi')], { awaiting: true })
    const row = await screen.findByTestId('msg-awaiting')
    expect(screen.queryByTestId('msg-unfinished')).toBeNull()
    expect(row.textContent).not.toMatch(/did not finish/)
    await userEvent.click(within(row).getByTestId('awaiting-answer'))
    expect(fake.sent.at(-1)).toMatchObject({ retry: true, text: '' })
  })
})

describe('copy buttons', () => {
  let writeText: ReturnType<typeof vi.fn>
  beforeEach(() => {
    writeText = vi.fn(async () => {})
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText } })
  })
  afterEach(() => {
    delete (navigator as unknown as Record<string, unknown>).clipboard
  })

  it('copy a message, and the code block under the pointer', async () => {
    renderChat([msg('u1', 'user', 'show code'), msg('a1', 'assistant', 'Here:\n\n```go\nfunc main() {}\n```\n')])
    const answer = await screen.findByTestId('msg-assistant')
    await userEvent.click(within(answer).getByTestId('msg-copy'))
    expect(writeText).toHaveBeenLastCalledWith('Here:\n\n```go\nfunc main() {}\n```\n')
    expect(within(answer).getByTestId('msg-copy')).toHaveTextContent('Copied')

    const pre = await vi.waitFor(() => answer.querySelector('pre')!)
    fireEvent.mouseOver(pre)
    await userEvent.click(within(answer).getByTestId('code-copy'))
    expect(writeText).toHaveBeenLastCalledWith(expect.stringContaining('func main() {}'))
    expect(writeText.mock.lastCall?.[0]).not.toContain('```')

    const user = screen.getByTestId('msg-user')
    await userEvent.click(within(user).getByTestId('msg-copy'))
    expect(writeText).toHaveBeenLastCalledWith('show code')
  })

  it('falls back to the copy command where the clipboard API is refused', async () => {
    writeText.mockRejectedValue(new Error('not allowed'))
    const exec = vi.fn(() => true)
    document.execCommand = exec as unknown as typeof document.execCommand
    renderChat([msg('u1', 'user', 'hello')])
    const user = await screen.findByTestId('msg-user')
    await userEvent.click(within(user).getByTestId('msg-copy'))
    expect(exec).toHaveBeenCalledWith('copy')
    expect(within(user).getByTestId('msg-copy')).toHaveTextContent('Copied')
  })
})

describe('edit, regenerate and versions', () => {
  it('edits a sent message in place and sends it as a new version', async () => {
    const { fake } = renderChat([msg('u1', 'user', 'Capital of France?'), msg('a1', 'assistant', 'Paris.')])
    const user = await screen.findByTestId('msg-user')
    await userEvent.click(within(user).getByTestId('msg-edit'))
    const input = screen.getByTestId('edit-input')
    expect(input).toHaveValue('Capital of France?')
    await userEvent.clear(input)
    await userEvent.type(input, 'Capital of Italy?{Enter}')
    expect(fake.bridge.chat.edit).toHaveBeenCalledWith({ conversationId: 'c1', messageId: 'u1', text: 'Capital of Italy?', mode: 'chat', agentId: '' })
    await vi.waitFor(() => expect(screen.queryByTestId('edit-box')).toBeNull())
  })

  it('Escape cancels an edit without sending', async () => {
    const { fake } = renderChat([msg('u1', 'user', 'hi')])
    await userEvent.click(within(await screen.findByTestId('msg-user')).getByTestId('msg-edit'))
    await userEvent.type(screen.getByTestId('edit-input'), ' there{Escape}')
    expect(screen.queryByTestId('edit-box')).toBeNull()
    expect(fake.bridge.chat.edit).not.toHaveBeenCalled()
  })

  it('regenerates an answer, then reads the conversation again when the new version is recorded', async () => {
    const { fake, stores } = renderChat([msg('u1', 'user', 'Capital of France?'), msg('a1', 'assistant', 'Paris.')])
    const unsubscribe = stores.chat.actions.start()
    await userEvent.click(within(await screen.findByTestId('msg-assistant')).getByTestId('msg-regenerate'))
    expect(fake.bridge.chat.regenerate).toHaveBeenCalledWith({ conversationId: 'c1', messageId: 'a1', mode: 'chat', agentId: '' })
    // the store published a new version: the whole window is read again
    await vi.waitFor(() => expect(screen.queryByTestId('msg-assistant')).toBeNull()) // the first answer left the version shown
    expect(vi.mocked(fake.bridge.conversations.load).mock.lastCall).toEqual(['c1', 300])
    unsubscribe()
  })

  it('switches versions with the ‹ › switcher where they diverge', async () => {
    const { fake } = renderChat([
      msg('u1', 'user', 'Capital of France?'),
      msg('a1', 'assistant', 'Paris.', { view: { kind: 'assistant', inactive: true } }),
      msg('a2', 'assistant', 'Paris, on the Seine.', { view: { kind: 'assistant', branch: { after: 'u1', index: 2, count: 2, reason: 'regenerate' } } }),
    ])
    const answers = await screen.findAllByTestId('msg-assistant')
    expect(answers).toHaveLength(1)
    const sw = within(answers[0]).getByTestId('branch-switcher')
    expect(sw).toHaveTextContent('2/2')
    expect(within(sw).getByTestId('branch-next')).toBeDisabled()
    await userEvent.click(within(sw).getByTestId('branch-prev'))
    expect(fake.bridge.conversations.switchBranch).toHaveBeenCalledWith('c1', 'u1', 0)
  })

  it('a frozen switcher cannot switch and says why', async () => {
    renderChat([msg('u1', 'user', 'q'), msg('a2', 'assistant', 'A.', { view: { kind: 'assistant', branch: { after: 'u1', index: 2, count: 2, frozen: true } } })])
    const sw = await screen.findByTestId('branch-switcher')
    expect(within(sw).getByTestId('branch-prev')).toBeDisabled()
    expect(sw.title).toMatch(/compressed/)
  })

  it('offers neither edit nor regenerate inside a run', async () => {
    renderChat([msg('u1', 'user', 'for the run', { mode: 'run', runId: 'r1' }), msg('a1', 'assistant', 'Noted.', { mode: 'run', runId: 'r1' })])
    await screen.findByTestId('msg-assistant')
    expect(screen.queryByTestId('msg-edit')).toBeNull()
    expect(screen.queryByTestId('msg-regenerate')).toBeNull()
  })
})

describe('who answered', () => {
  it('shows the agent name and icon on its replies', async () => {
    renderChat(
      [
        msg('u1', 'user', 'hi', { mode: 'agent' }),
        msg('a1', 'assistant', 'Tell me about the idea.', { mode: 'agent', agentId: 'analyst' }),
        msg('a2', 'assistant', 'And who it is for.', { mode: 'agent', agentId: 'analyst' }),
      ],
      { agents: { analyst: { id: 'analyst', name: 'Mara', title: 'Product Analyst', icon: '🔍', description: '' } } },
    )
    const badges = await screen.findAllByTestId('msg-speaker')
    expect(badges).toHaveLength(1) // once per reply
    expect(badges[0]).toHaveTextContent('🔍Mara')
    expect(badges[0]).toHaveAttribute('title', 'Product Analyst (analyst)')
  })
})

describe('export', () => {
  it('saves the conversation as Markdown or JSON from the ⋯ menu', async () => {
    const { fake } = renderChat([msg('u1', 'user', 'hi')])
    await userEvent.click(await screen.findByTestId('conv-menu-toggle'))
    await userEvent.click(screen.getByTestId('export-md'))
    expect(fake.bridge.conversations.exportToFile).toHaveBeenCalledWith('c1', 'md')
    expect(await screen.findByTestId('chat-notice')).toHaveTextContent('Saved to /home/test/export.md')
    expect(screen.queryByTestId('conv-menu')).toBeNull()

    await userEvent.click(screen.getByTestId('conv-menu-toggle'))
    await userEvent.click(screen.getByTestId('export-json'))
    expect(fake.bridge.conversations.exportToFile).toHaveBeenLastCalledWith('c1', 'json')
  })

  it('holds the checkpoints: its item opens the panel that creates one', async () => {
    const { fake } = renderChat([msg('u1', 'user', 'hi')])
    expect(screen.queryByTestId('checkpoints-toggle')).toBeNull() // not a button of its own in the header
    await userEvent.click(await screen.findByTestId('conv-menu-toggle'))
    expect(screen.getByTestId('menu-checkpoints')).toHaveTextContent('Checkpoints')
    await userEvent.click(screen.getByTestId('menu-checkpoints'))
    expect(screen.queryByTestId('conv-menu')).toBeNull()
    await userEvent.type(within(await screen.findByTestId('checkpoints-panel')).getByTestId('cp-name-input'), 'before refactor')
    await userEvent.click(screen.getByTestId('cp-create'))
    expect(fake.bridge.conversations.checkpoint).toHaveBeenCalledWith('c1', 'before refactor')
  })

  it('says nothing when the save dialog is cancelled', async () => {
    const { fake } = renderChat([msg('u1', 'user', 'hi')])
    fake.setNextSave(null)
    await userEvent.click(await screen.findByTestId('conv-menu-toggle'))
    await userEvent.click(screen.getByTestId('export-md'))
    await vi.waitFor(() => expect(fake.bridge.conversations.exportToFile).toHaveBeenCalled())
    expect(screen.queryByTestId('chat-notice')).toBeNull()
  })
})

describe('noise', () => {
  it('a large tool result says its size in words, not the log preview header or its path', async () => {
    renderChat([
      msg('u1', 'user', 'read it'),
      msg('a1', 'assistant', undefined, { tool_calls: [{ id: 'k1', type: 'function', function: { name: 'fs.read', arguments: '{"path":"@project/big.txt"}' } }] }),
      msg('t1', 'tool', 'TOOL_RESULT_PREVIEW (78563 bytes; truncated)\nline 1\nline 2\n…\nFull output: @state/logs/tool-results/c1/t1.json', {
        tool_call_id: 'k1',
        tool_name: 'fs.read',
        fullOutputPath: '@state/logs/tool-results/c1/t1.json',
        view: { kind: 'tool-result', large: { size: 78563, head: 'line 1\nline 2' } },
      }),
    ])
    const card = await screen.findByTestId('tool-card')
    expect(within(card).getByTestId('tool-large')).toHaveTextContent('Large result (77 KB)')
    expect(card.textContent).not.toMatch(/TOOL_RESULT_PREVIEW|@state/)
    await userEvent.click(within(card).getByTestId('tool-toggle'))
    expect(within(card).getByTestId('tool-body')).toHaveTextContent('the beginning of 77 KB')
    expect(card.textContent).not.toMatch(/TOOL_RESULT_PREVIEW|@state/)
    await userEvent.click(within(card).getByTestId('tool-full-output'))
    expect(await screen.findByTestId('tool-output-text')).toHaveTextContent('FULL OUTPUT OF t1')
  })

  it('a long result grows in place instead of scrolling inside the list', async () => {
    const long = JSON.stringify({ ok: true, entries: Array.from({ length: 40 }, (_, i) => `file-${i}.md`) })
    renderChat([
      msg('u1', 'user', 'list'),
      msg('a1', 'assistant', undefined, { tool_calls: [{ id: 'k1', type: 'function', function: { name: 'fs.list', arguments: '{}' } }] }),
      msg('t1', 'tool', long, { tool_call_id: 'k1', tool_name: 'fs.list' }),
    ])
    const card = await screen.findByTestId('tool-card')
    await userEvent.click(within(card).getByTestId('tool-toggle'))
    const result = within(card).getByTestId('tool-result-text')
    expect(result.textContent).not.toContain('file-39.md')
    await userEvent.click(within(card).getByTestId('tool-more'))
    expect(result.textContent).toContain('file-39.md')
  })

  it('keeps rows whose parts did not change, so they are not drawn again', () => {
    const entries = [msg('u1', 'user', 'hi'), msg('x', 'assistant', 'Half', { partType: 'error', view: errorView('LLM_TIMEOUT', 'slow', { title: 'Slow' }) })]
    const a = buildRows(entries)
    const b = buildRows([...entries])
    expect(a.map((r, i) => sameRow(r, b[i]))).toEqual([true, true])
    const changed = buildRows([entries[0], { ...entries[1], compacted: true }])
    expect(sameRow(a[1], changed[1])).toBe(false)
  })
})

describe('a failure that was answered since', () => {
  it('keeps its words but offers nothing more', async () => {
    renderChat([
      msg('u1', 'user', 'hi'),
      msg('x1', 'assistant', 'LLM_ERROR', {
        partType: 'error',
        includeInContext: false,
        view: errorView('LLM_NETWORK', 'connection refused', { title: "Can't reach the model server", settings: true }, { latest: false }),
      }),
      msg('a1', 'assistant', 'Hello.'),
    ])
    const row = await screen.findByTestId('msg-error')
    expect(within(row).getByTestId('problem-title')).toHaveTextContent("Can't reach the model server")
    for (const id of ['error-retry', 'error-continue', 'error-open-settings']) expect(within(row).queryByTestId(id)).toBeNull()
  })
})
