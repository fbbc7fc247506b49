import { act, fireEvent, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { BridgeError, type Entry } from '../../bridge'
import { failure, msg } from '../../test/entries'
import { createFakeBridge } from '../../test/fakeBridge'
import { renderWithStores } from '../../test/render'
import { App } from '../../App'

const project = { id: 'p1', name: 'alpha', root: '/home/me/alpha', dataDir: '/home/x/projects/p1', activePackageId: '' }

// jsdom has no layout: give elements a size so the virtual list renders rows.
const sized = ['offsetHeight', 'offsetWidth', 'clientHeight', 'clientWidth'] as const
beforeAll(() => {
  for (const p of sized) Object.defineProperty(HTMLElement.prototype, p, { configurable: true, get: () => (p.endsWith('Height') ? 600 : 800) })
})
afterAll(() => {
  for (const p of sized) delete (HTMLElement.prototype as unknown as Record<string, unknown>)[p]
})

function renderWorkspace(entries: Entry[] = [], opts: Parameters<typeof createFakeBridge>[0] = {}) {
  const fake = createFakeBridge({
    folders: ['/home/me/alpha'],
    current: project,
    conversations: [{ meta: { id: 'c1', title: 'First chat' }, entries }, { meta: { id: 'c2', title: 'Second chat', lastActiveAt: '2020-01-01T00:00:00Z' } }],
    ...opts,
  })
  const r = renderWithStores(<App />, fake.bridge)
  return { fake, ...r }
}

async function openConversation(title: string) {
  const item = (await screen.findAllByTestId('conv-item')).find((el) => el.textContent?.includes(title))!
  await userEvent.click(within(item).getByTestId('conv-open'))
  return screen.findByTestId('chat-view')
}

describe('workspace', () => {
  it('renames inline and deletes after a confirmation that names what goes', async () => {
    const { fake } = renderWorkspace()
    const items = await screen.findAllByTestId('conv-item')
    expect(items.map((i) => within(i).getByTestId('conv-title').textContent)).toEqual(['First chat', 'Second chat'])

    await userEvent.click(within(items[0]).getByTestId('conv-rename'))
    const input = screen.getByTestId('conv-rename-input')
    await userEvent.clear(input)
    await userEvent.type(input, 'Renamed{Enter}')
    expect(fake.bridge.conversations.rename).toHaveBeenCalledWith('c1', 'Renamed')
    expect(await screen.findByText('Renamed')).toBeInTheDocument()

    await userEvent.click(within(screen.getAllByTestId('conv-item')[1]).getByTestId('conv-delete'))
    const dialog = await screen.findByTestId('delete-dialog')
    expect(dialog).toHaveTextContent(/chat history/)
    expect(dialog).toHaveTextContent(/tool output/)
    expect(dialog).toHaveTextContent(/and any workflow run in it\./)
    await userEvent.click(screen.getByTestId('delete-cancel'))
    expect(fake.bridge.conversations.remove).not.toHaveBeenCalled()
    await userEvent.click(within(screen.getAllByTestId('conv-item')[1]).getByTestId('conv-delete'))
    await userEvent.click(screen.getByTestId('delete-confirm'))
    expect(fake.bridge.conversations.remove).toHaveBeenCalledWith('c2')
    await vi.waitFor(() => expect(screen.getAllByTestId('conv-item')).toHaveLength(1))
  })

  it('Ctrl+N starts a conversation', async () => {
    const { fake } = renderWorkspace()
    await screen.findAllByTestId('conv-item')
    fireEvent.keyDown(window, { key: 'n', ctrlKey: true })
    await screen.findByTestId('chat-empty')
    expect(fake.bridge.conversations.create).toHaveBeenCalled()
  })

  it('shows tool calls as cards and errors with Continue and Retry', async () => {
    const { fake } = renderWorkspace([
      msg('u1', 'user', 'list the files'),
      msg('a1', 'assistant', undefined, { tool_calls: [{ id: 'k1', type: 'function', function: { name: 'fs.list', arguments: '{"path":"@project"}' } }] }),
      msg('t1', 'tool', '{"entries":["notes.md"]}', { tool_call_id: 'k1', tool_name: 'fs.list', duration: 42 }),
      msg('t2', 'tool', 'TOOL_RESULT_PREVIEW (70000 bytes; truncated)\n...', { tool_call_id: 'k2', tool_name: 'fs.read', fullOutputPath: '@state/logs/tool-results/c1/t2.json' }),
      failure('e1', 'Half', 'LLM_TIMEOUT', 'no data for 60s', { latest: true }),
    ])
    await openConversation('First chat')
    const cards = await screen.findAllByTestId('tool-card')
    expect(cards.map((c) => [c.dataset.tool, c.dataset.status])).toEqual([
      ['fs.list', 'ok'],
      ['fs.read', 'ok'],
    ])
    expect(within(cards[0]).getByTestId('tool-status')).toHaveTextContent('done · 42 ms')
    expect(screen.queryAllByTestId('msg-assistant')).toHaveLength(0) // neither the call nor the results are bubbles
    await userEvent.click(within(cards[0]).getByTestId('tool-toggle'))
    expect(within(cards[0]).getByTestId('tool-body')).toHaveTextContent('notes.md')
    await userEvent.click(within(cards[1]).getByTestId('tool-full-output'))
    expect(await screen.findByTestId('tool-output-text')).toHaveTextContent('FULL OUTPUT OF t2')
    await userEvent.click(screen.getByTestId('tool-output-dialog-close'))

    const error = screen.getByTestId('msg-error')
    expect(error).toHaveAttribute('data-code', 'LLM_TIMEOUT')
    expect(error).toHaveTextContent('no data for 60s')
    await userEvent.click(screen.getByTestId('error-retry'))
    expect(fake.sent.at(-1)).toMatchObject({ conversationId: 'c1', text: '', retry: true }) // the message is answered again, not repeated
    act(() => fake.finish('c1'))
    await vi.waitFor(() => expect(screen.getByTestId('chat-view')).toHaveAttribute('data-streaming', 'false'))
  })

  it('Enter sends, Shift+Enter adds a line, Esc stops the reply', async () => {
    const { fake } = renderWorkspace([msg('u1', 'user', 'hello')])
    await openConversation('First chat')
    const input = screen.getByTestId('composer-input')
    await userEvent.type(input, 'line one{Shift>}{Enter}{/Shift}line two')
    expect(input).toHaveValue('line one\nline two')
    await userEvent.type(input, '{Enter}')
    expect(fake.sent.at(-1)).toMatchObject({ conversationId: 'c1', text: 'line one\nline two', mode: 'chat' })
    expect(input).toHaveValue('')
    expect(await screen.findByTestId('composer-stop')).toBeInTheDocument()
    act(() => {
      fake.emit('llm:stream-start', { conversationId: 'c1', messageId: 'live', mode: 'chat', turn: 0 })
      fake.emit('llm:stream-chunk', { conversationId: 'c1', messageId: 'live', delta: '**bold** answer <img src=x onerror=alert(1)>' })
    })
    const live = await screen.findByTestId('msg-live')
    await vi.waitFor(() => expect(live.querySelector('strong')?.textContent).toBe('bold'))
    expect(live.querySelector('img')).toBeNull()
    fireEvent.keyDown(window, { key: 'Escape' })
    expect(fake.bridge.chat.stop).toHaveBeenCalledWith('c1')
  })

  it('without an LLM it says what to do, and Settings opens from there', async () => {
    renderWorkspace([], { llmConfigured: false })
    await openConversation('First chat')
    expect(await screen.findByTestId('llm-not-configured')).toBeInTheDocument()
    expect(screen.getByTestId('composer-note')).toHaveTextContent(/Configure the LLM/)
    await userEvent.click(screen.getByTestId('open-settings-from-notice'))
    expect(await screen.findByTestId('settings-form')).toBeInTheDocument()
  })

  it('the meter shows the status and opens the context inspector', async () => {
    const { fake } = renderWorkspace([msg('u1', 'user', 'hello', { tokens: 10 })])
    await openConversation('First chat')
    const meter = await screen.findByTestId('context-meter')
    await vi.waitFor(() => expect(meter).toHaveAttribute('data-status', 'normal'))
    act(() => fake.emit('context:usage', { conversationId: 'c1', usedTokens: 700, totalBudget: 1000, usagePercent: 70, remaining: 300, status: 'warning' }))
    expect(meter).toHaveAttribute('data-status', 'warning')
    act(() => fake.emit('context:usage', { conversationId: 'c1', usedTokens: 850, totalBudget: 1000, usagePercent: 85, remaining: 150, status: 'compressing' }))
    expect(meter).toHaveAttribute('data-status', 'compressing')
    expect(meter).toHaveTextContent('compressing')
    act(() => fake.emit('context:usage', { conversationId: 'c1', usedTokens: 900, totalBudget: 1000, usagePercent: 90, remaining: 100, status: 'critical' }))
    expect(meter).toHaveAttribute('data-status', 'critical')
    await userEvent.click(meter)
    const rows = await screen.findAllByTestId('inspector-row')
    expect(rows[0]).toHaveTextContent('system')
    expect(rows[1]).toHaveTextContent('hello')
  })

  it('the inspector shows the project instructions and creates and edits AGENTS.md', async () => {
    const { fake } = renderWorkspace([msg('u1', 'user', 'hello', { tokens: 10 })])
    await openConversation('First chat')
    await userEvent.click(await screen.findByTestId('context-meter'))
    expect(await screen.findByTestId('instructions-none')).toHaveTextContent(/no AGENTS\.md/)
    await userEvent.click(screen.getByTestId('instructions-edit'))
    await userEvent.type(screen.getByTestId('instructions-editor'), 'Run the tests first.')
    await userEvent.click(screen.getByTestId('instructions-save'))
    expect(await screen.findByTestId('instructions-saved')).toBeInTheDocument()
    expect(fake.bridge.context.saveInstructions).toHaveBeenCalledWith('Run the tests first.')
    expect(screen.getByTestId('instructions-text')).toHaveTextContent('Run the tests first.')
    await userEvent.click(screen.getByTestId('instructions-edit'))
    const editor = screen.getByTestId('instructions-editor')
    expect(editor).toHaveValue('Run the tests first.')
    await userEvent.clear(editor)
    await userEvent.type(editor, 'x'.repeat(10))
    ;(fake.bridge.context.saveInstructions as ReturnType<typeof vi.fn>).mockRejectedValueOnce(new BridgeError('E_PROJECT_IO', 'the disk is full'))
    await userEvent.click(screen.getByTestId('instructions-save'))
    expect(await screen.findByTestId('instructions-error')).toHaveTextContent('the disk is full')
    expect(screen.getByTestId('instructions-editor')).toHaveValue('xxxxxxxxxx')
  })
})

describe('settings screen', () => {
  it('shows overrides read-only, tests the connection and saves the theme as chosen', async () => {
    const fake = createFakeBridge()
    renderWithStores(<App />, fake.bridge)
    await userEvent.click(await screen.findByTestId('open-settings'))
    await screen.findByTestId('settings-form')
    expect(screen.getByTestId('set-llm.model')).toHaveAttribute('readonly')
    expect(screen.getByTestId('override-llm.model')).toHaveTextContent('CREWAGENT_LLM_MODEL')
    expect(screen.getByTestId('set-llm.apiKey')).toHaveValue('••••abcd')
    await userEvent.click(screen.getByTestId('settings-test'))
    expect(await screen.findByTestId('settings-test-result')).toHaveAttribute('data-ok', 'true')
    // a choice is saved at once: closing keeps it
    await userEvent.click(screen.getByTestId('set-theme-dark'))
    expect(document.documentElement.dataset.theme).toBe('dark')
    expect(await screen.findByTestId('settings-saved')).toBeInTheDocument()
    expect(fake.bridge.settings.save).toHaveBeenCalledWith(expect.objectContaining({ theme: 'dark' }))
    await userEvent.click(screen.getByTestId('settings-cancel'))
    expect(document.documentElement.dataset.theme).toBe('dark')
  })
})
